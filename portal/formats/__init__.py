"""The project's number and date formats by language, over Django's (FORMAT_MODULE_PATH)."""
