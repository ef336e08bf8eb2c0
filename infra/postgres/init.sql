-- Role and database for Postern's read model (the projector).
--   psql -U postgres -f infra/postgres/init.sql
-- then POSTERN_DB_URL=postgres://postern:postern@127.0.0.1:5432/postern
-- Idempotent: safe to run again. Change the password outside development.

DO $$
BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'postern') THEN
    CREATE ROLE postern LOGIN PASSWORD 'postern';
  END IF;
END
$$;

-- CREATE DATABASE cannot run inside DO; \gexec runs it only when missing.
SELECT 'CREATE DATABASE postern OWNER postern'
WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = 'postern') \gexec

-- The projector creates its own tables; PostgreSQL 15 no longer lets every
-- role create in the public schema, so give the owner its schema rights.
\connect postern
GRANT ALL ON SCHEMA public TO postern;
