"""Private local servers (PostgreSQL, Kafka) for `fleet up` and the test session.

Each server lives entirely under one directory and listens on 127.0.0.1 only.
"""
