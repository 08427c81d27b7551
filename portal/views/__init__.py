"""Server-rendered pages, one module per area; URL routes live in portal/urls.py."""
