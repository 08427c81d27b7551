"""Services: every write of the portal goes through a function here (``<noun>_<verb>``)."""
