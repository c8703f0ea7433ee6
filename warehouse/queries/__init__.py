"""Data access for the API and the services: small functions taking a psycopg connection.

Rows come back as dicts when the connection uses ``psycopg.rows.dict_row`` (the API's pool does);
functions here set ``row_factory`` on their own cursors so they work with any connection.
"""
