-- Rate of the token endpoint's client_credentials grant (api/token_rate.py): one row per counted key, the
-- requests of its current minute (a fixed window shared by every API process). Keys are 'client:<sha256 of
-- the client id, 32 hex>' (known or not, so unknown ids are limited like known ones) and 'addr:<address or
-- IPv6 /64>'. Rows of past minutes are swept by the API; a key of an address over its limit never creates a
-- client row, so the table stays bounded by the addresses that ask.
-- depends: 0030_reports

CREATE TABLE api_token_rate (
    key           text PRIMARY KEY,
    window_start  timestamptz NOT NULL,
    requests      integer NOT NULL
);
CREATE INDEX api_token_rate_window_idx ON api_token_rate (window_start);
