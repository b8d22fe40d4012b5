/// Parley's schema in PostgreSQL, as migrations of one statement each (the extended protocol runs one at a time). It
/// holds what the SQLite schema holds, in PostgreSQL's terms: identity columns, `timestamptz`, `bytea`, emails unique
/// whatever their case through an index on `lower(email)`, `tsvector` columns with GIN indexes for search, and the
/// same bookkeeping triggers (stored bytes, `uses_knowledge`) as PL/pgSQL functions.
public enum PostgresSchema {
    /// The tables, in the order the schema creates them: each after those it references.
    public static let tableNames: [String] = tables.compactMap { statement in
        guard statement.hasPrefix("CREATE TABLE ") else { return nil }
        return statement.dropFirst("CREATE TABLE ".count).split(separator: " ").first.map(String.init)
    }

    /// The migrations in order; a migration's number is its place in this list, from 1.
    static let migrations: [PostgresMigration] = [
        PostgresMigration(name: "v1 schema", statements: tables + search + bookkeeping),
        PostgresMigration(name: "v2 instances", statements: instances),
        PostgresMigration(name: "v3 usage changes", statements: usageChanges),
    ]

    /// The tables SQLite has no counterpart of, which `parley migrate --from-sqlite` copies nothing into: for several
    /// instances serving one database, which instance runs each streaming reply and completion, until when
    /// (`PostgresLeases`), the relay's messages too long for a notification (`PostgresReplyRelay`), the throttles'
    /// events (`PostgresThrottleLedger`), and the changes of stored bytes and of usage not yet folded
    /// (`PostgresStoredBytes`, `PostgresUsageLedger`).
    public static let ownTableNames = [
        "reply_leases", "relay_payloads", "throttle_events", "stored_byte_changes", "usage_changes",
    ]

    /// v3: usage added by rows of `usage_changes`, which concurrent transactions insert without waiting for each
    /// other (one user's replies finishing at once never queue on their `usage_daily` row); the instances fold them
    /// into `usage_daily` every second (`PostgresUsageLedger.fold`), and readers sum `usage_rows`, both tables' rows.
    static let usageChanges = [
        """
        CREATE TABLE usage_changes (
            day text NOT NULL,
            user_id bigint NOT NULL,
            model text NOT NULL,
            source text NOT NULL,
            requests bigint NOT NULL,
            input_tokens bigint NOT NULL,
            cached_input_tokens bigint NOT NULL,
            output_tokens bigint NOT NULL,
            cost_micros bigint NOT NULL,
            estimated_tokens bigint NOT NULL,
            estimated_cost_micros bigint NOT NULL,
            title_tokens bigint NOT NULL,
            title_cost_micros bigint NOT NULL,
            reasoning_tokens bigint NOT NULL,
            document_tokens bigint NOT NULL)
        """,
        "CREATE INDEX usage_changes_by_user ON usage_changes (user_id, day)",
        """
        CREATE VIEW usage_rows AS
            SELECT day, user_id, model, source, requests, input_tokens, cached_input_tokens, output_tokens,
                cost_micros, estimated_tokens, estimated_cost_micros, title_tokens, title_cost_micros, reasoning_tokens,
                document_tokens
            FROM usage_daily
            UNION ALL
            SELECT day, user_id, model, source, requests, input_tokens, cached_input_tokens, output_tokens,
                cost_micros, estimated_tokens, estimated_cost_micros, title_tokens, title_cost_micros, reasoning_tokens,
                document_tokens
            FROM usage_changes
        """,
    ]

    /// v2: what several instances share (above), stored bytes counted without holding the user's row, and, as in
    /// SQLite's v23, the single sign-ons under way.
    static let instances = [
        """
        CREATE TABLE reply_leases (
            message_id bigint UNIQUE REFERENCES messages(id) ON DELETE CASCADE,
            conversation_id bigint UNIQUE REFERENCES conversations(id) ON DELETE CASCADE,
            completion_id bigint UNIQUE REFERENCES api_completions(id) ON DELETE CASCADE,
            instance_id uuid NOT NULL,
            expires_at timestamptz NOT NULL,
            CHECK ((message_id IS NULL) = (conversation_id IS NULL)
                AND (message_id IS NULL) <> (completion_id IS NULL)))
        """,
        "CREATE INDEX reply_leases_by_instance ON reply_leases (instance_id)",
        "CREATE INDEX reply_leases_by_expiry ON reply_leases (expires_at)",
        """
        CREATE TABLE relay_payloads (
            id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            payload text NOT NULL,
            created_at timestamptz NOT NULL DEFAULT now())
        """,
        """
        CREATE TABLE pending_sign_ins (
            state_digest text PRIMARY KEY,
            code_verifier text NOT NULL,
            nonce text NOT NULL,
            next text NOT NULL,
            expires_at timestamptz NOT NULL)
        """,
        "CREATE TABLE throttle_events (key text NOT NULL, at timestamptz NOT NULL)",
        // Stored bytes change by rows of `stored_byte_changes`, which concurrent transactions insert without waiting
        // for each other (a user's concurrent sends never queue on the user's row); the instances fold them into
        // `users.stored_bytes` every second (`PostgresStoredBytes`). No foreign key: a deleted user's last changes are
        // dropped by the next fold.
        "CREATE TABLE stored_byte_changes (user_id bigint NOT NULL, bytes bigint NOT NULL)",
        "CREATE INDEX stored_byte_changes_by_user ON stored_byte_changes (user_id)",
        """
        CREATE FUNCTION parley_store_bytes(owner bigint, change bigint) RETURNS void LANGUAGE sql AS $$
            INSERT INTO stored_byte_changes (user_id, bytes)
            SELECT owner, change WHERE owner IS NOT NULL AND change <> 0
        $$
        """,
        """
        CREATE OR REPLACE FUNCTION parley_messages_stored() RETURNS trigger LANGUAGE plpgsql AS $$
        DECLARE
            change bigint := 0;
            conversation bigint;
        BEGIN
            IF TG_OP IN ('UPDATE', 'DELETE') THEN
                change := change - parley_message_bytes(OLD.content, OLD.reasoning, OLD.status);
                conversation := OLD.conversation_id;
            END IF;
            IF TG_OP IN ('INSERT', 'UPDATE') THEN
                change := change + parley_message_bytes(NEW.content, NEW.reasoning, NEW.status);
                conversation := NEW.conversation_id;
            END IF;
            IF change <> 0 THEN
                PERFORM parley_store_bytes((SELECT user_id FROM conversations WHERE id = conversation), change);
            END IF;
            RETURN NULL;
        END
        $$
        """,
        """
        CREATE OR REPLACE FUNCTION parley_conversations_stored() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            PERFORM parley_store_bytes(OLD.user_id, -COALESCE((
                SELECT SUM(parley_message_bytes(content, reasoning, status)) FROM messages
                WHERE conversation_id = OLD.id), 0)::bigint);
            RETURN OLD;
        END
        $$
        """,
        """
        CREATE OR REPLACE FUNCTION parley_attachments_stored() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF TG_OP = 'DELETE' THEN
                PERFORM parley_store_bytes(OLD.user_id, -OLD.byte_count);
            ELSE
                PERFORM parley_store_bytes(NEW.user_id, NEW.byte_count);
            END IF;
            RETURN NULL;
        END
        $$
        """,
        """
        CREATE OR REPLACE FUNCTION parley_documents_stored() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF TG_OP IN ('UPDATE', 'DELETE') THEN
                PERFORM parley_store_bytes(OLD.user_id, -(OLD.byte_count + OLD.text_bytes));
            END IF;
            IF TG_OP IN ('INSERT', 'UPDATE') THEN
                PERFORM parley_store_bytes(NEW.user_id, NEW.byte_count + NEW.text_bytes);
            END IF;
            RETURN NULL;
        END
        $$
        """,
        "CREATE INDEX throttle_events_by_key ON throttle_events (key, at)",
        "CREATE INDEX throttle_events_by_time ON throttle_events (at)",
    ]

    /// The tables and their indexes, each table after those it references.
    static let tables = [
        "CREATE TABLE settings (key text PRIMARY KEY, value text NOT NULL)",
        """
        CREATE TABLE users (
            id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            email text NOT NULL,
            password_hash text NOT NULL,
            is_admin boolean NOT NULL DEFAULT false,
            is_disabled boolean NOT NULL DEFAULT false,
            created_at timestamptz NOT NULL,
            monthly_budget_micros bigint,
            stored_bytes bigint NOT NULL DEFAULT 0,
            storage_quota_bytes bigint,
            display_name text,
            sso_subject text)
        """,
        "CREATE UNIQUE INDEX users_by_email ON users (lower(email))",
        "CREATE UNIQUE INDEX users_by_sso_subject ON users (sso_subject) WHERE sso_subject IS NOT NULL",
        """
        CREATE TABLE sessions (
            id text PRIMARY KEY,
            user_id bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            created_at timestamptz NOT NULL,
            expires_at timestamptz NOT NULL,
            user_agent text,
            address text,
            last_used_at timestamptz)
        """,
        "CREATE INDEX sessions_by_user ON sessions (user_id)",
        """
        CREATE TABLE model_prices (
            id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            model_id text NOT NULL,
            input bigint NOT NULL,
            cached_input bigint NOT NULL,
            output bigint NOT NULL,
            effective_from timestamptz NOT NULL)
        """,
        "CREATE INDEX model_prices_by_model ON model_prices (model_id, effective_from, id)",
        """
        CREATE TABLE user_groups (
            id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            name text NOT NULL,
            from_sso boolean NOT NULL DEFAULT false,
            monthly_budget_micros bigint,
            created_at timestamptz NOT NULL)
        """,
        "CREATE UNIQUE INDEX user_groups_by_name ON user_groups (lower(name))",
        """
        CREATE TABLE group_members (
            group_id bigint NOT NULL REFERENCES user_groups(id) ON DELETE CASCADE,
            user_id bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            PRIMARY KEY (group_id, user_id))
        """,
        "CREATE INDEX group_members_by_user ON group_members (user_id, group_id)",
        """
        CREATE TABLE model_access (
            model text NOT NULL,
            group_id bigint NOT NULL REFERENCES user_groups(id) ON DELETE CASCADE,
            PRIMARY KEY (model, group_id))
        """,
        """
        CREATE TABLE assistants (
            id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            author_id bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            name text NOT NULL,
            description text NOT NULL DEFAULT '',
            icon text NOT NULL DEFAULT '',
            instructions text NOT NULL DEFAULT '',
            model text NOT NULL,
            generation_settings text,
            starters text NOT NULL DEFAULT '[]',
            visibility text NOT NULL DEFAULT 'private',
            version bigint NOT NULL DEFAULT 1,
            created_at timestamptz NOT NULL,
            updated_at timestamptz NOT NULL,
            icon_image bytea,
            icon_type text)
        """,
        "CREATE INDEX assistants_by_author ON assistants (author_id)",
        """
        CREATE TABLE assistant_groups (
            assistant_id bigint NOT NULL REFERENCES assistants(id) ON DELETE CASCADE,
            group_id bigint NOT NULL REFERENCES user_groups(id) ON DELETE CASCADE,
            PRIMARY KEY (assistant_id, group_id))
        """,
        """
        CREATE TABLE conversations (
            id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            user_id bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            title text NOT NULL,
            model text NOT NULL,
            system_prompt text NOT NULL DEFAULT '',
            created_at timestamptz NOT NULL,
            updated_at timestamptz NOT NULL,
            pinned boolean NOT NULL DEFAULT false,
            archived boolean NOT NULL DEFAULT false,
            title_cost_micros bigint NOT NULL DEFAULT 0,
            current_leaf_id bigint,
            generation_settings text,
            assistant_id bigint REFERENCES assistants(id) ON DELETE SET NULL,
            assistant_name text,
            assistant_version bigint,
            uses_knowledge boolean NOT NULL DEFAULT false,
            tool_servers text)
        """,
        "CREATE INDEX conversations_by_list_order ON conversations (user_id, archived, pinned, updated_at, id)",
        "CREATE INDEX conversations_by_assistant ON conversations (assistant_id) WHERE assistant_id IS NOT NULL",
        """
        CREATE TABLE messages (
            id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            conversation_id bigint NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
            role text NOT NULL,
            content text NOT NULL,
            status text NOT NULL,
            model text NOT NULL,
            request_id text,
            parent_id bigint,
            prompt_tokens bigint NOT NULL DEFAULT 0,
            completion_tokens bigint NOT NULL DEFAULT 0,
            usage_estimated boolean NOT NULL DEFAULT false,
            error_code text,
            error_message text,
            created_at timestamptz NOT NULL,
            updated_at timestamptz NOT NULL,
            provider text,
            cached_prompt_tokens bigint NOT NULL DEFAULT 0,
            cost_micros bigint NOT NULL DEFAULT 0,
            price_version_id bigint REFERENCES model_prices(id),
            search_held boolean NOT NULL DEFAULT false,
            reasoning text,
            reasoning_tokens bigint NOT NULL DEFAULT 0,
            reasoning_ms bigint,
            document_tokens bigint NOT NULL DEFAULT 0,
            sources text,
            tool_steps text)
        """,
        "CREATE INDEX messages_by_conversation ON messages (conversation_id, id)",
        """
        CREATE UNIQUE INDEX messages_by_request ON messages (conversation_id, request_id)
        WHERE request_id IS NOT NULL
        """,
        "CREATE INDEX messages_streaming ON messages (status) WHERE status = 'streaming'",
        """
        CREATE TABLE shares (
            id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            token_hash text NOT NULL UNIQUE,
            user_id bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            conversation_id bigint NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
            title text NOT NULL,
            model text NOT NULL,
            author_name text,
            created_at timestamptz NOT NULL,
            snapshot_at timestamptz NOT NULL,
            expires_at timestamptz,
            views bigint NOT NULL DEFAULT 0,
            include_reasoning boolean NOT NULL DEFAULT false)
        """,
        "CREATE INDEX shares_by_owner ON shares (user_id, id)",
        "CREATE INDEX shares_by_conversation ON shares (conversation_id)",
        """
        CREATE TABLE share_messages (
            id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            share_id bigint NOT NULL REFERENCES shares(id) ON DELETE CASCADE,
            position bigint NOT NULL,
            role text NOT NULL,
            content text NOT NULL,
            status text NOT NULL,
            model text NOT NULL,
            created_at timestamptz NOT NULL,
            reasoning text,
            reasoning_ms bigint,
            tool_steps text,
            UNIQUE (share_id, position))
        """,
        "CREATE TABLE attachment_data (id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, data bytea NOT NULL)",
        """
        CREATE TABLE attachments (
            id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            user_id bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            conversation_id bigint NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
            message_id bigint NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
            position bigint NOT NULL,
            content_type text NOT NULL,
            file_name text NOT NULL,
            byte_count bigint NOT NULL,
            width bigint NOT NULL,
            height bigint NOT NULL,
            digest text NOT NULL,
            created_at timestamptz NOT NULL,
            data_id bigint REFERENCES attachment_data(id),
            UNIQUE (message_id, position))
        """,
        "CREATE INDEX attachments_by_conversation ON attachments (conversation_id, message_id)",
        "CREATE INDEX attachments_by_data ON attachments (data_id)",
        "CREATE INDEX attachments_by_user ON attachments (user_id, byte_count)",
        """
        CREATE TABLE share_attachments (
            share_message_id bigint NOT NULL REFERENCES share_messages(id) ON DELETE CASCADE,
            attachment_id bigint NOT NULL REFERENCES attachments(id) ON DELETE CASCADE,
            position bigint NOT NULL,
            PRIMARY KEY (share_message_id, position))
        """,
        "CREATE INDEX share_attachments_by_attachment ON share_attachments (attachment_id)",
        """
        CREATE TABLE invites (
            id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            token_hash text NOT NULL UNIQUE,
            email text,
            created_by bigint REFERENCES users(id) ON DELETE SET NULL,
            created_at timestamptz NOT NULL,
            expires_at timestamptz NOT NULL,
            used_at timestamptz,
            used_by bigint REFERENCES users(id) ON DELETE SET NULL)
        """,
        """
        CREATE TABLE api_keys (
            id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            user_id bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            name text NOT NULL,
            digest text NOT NULL UNIQUE,
            created_at timestamptz NOT NULL,
            last_used_at timestamptz,
            expires_at timestamptz)
        """,
        "CREATE INDEX api_keys_by_user ON api_keys (user_id)",
        """
        CREATE TABLE api_completions (
            id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            user_id bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            key_id bigint REFERENCES api_keys(id) ON DELETE SET NULL,
            model text NOT NULL,
            provider text,
            status text NOT NULL,
            prompt_tokens bigint NOT NULL DEFAULT 0,
            cached_prompt_tokens bigint NOT NULL DEFAULT 0,
            completion_tokens bigint NOT NULL DEFAULT 0,
            reasoning_tokens bigint NOT NULL DEFAULT 0,
            cost_micros bigint NOT NULL DEFAULT 0,
            usage_estimated boolean NOT NULL DEFAULT false,
            price_version_id bigint REFERENCES model_prices(id),
            error_code text,
            created_at timestamptz NOT NULL,
            updated_at timestamptz NOT NULL)
        """,
        "CREATE INDEX api_completions_by_user ON api_completions (user_id, created_at)",
        "CREATE INDEX api_completions_streaming ON api_completions (user_id) WHERE status = 'streaming'",
        """
        CREATE TABLE usage_daily (
            day text NOT NULL,
            user_id bigint NOT NULL,
            model text NOT NULL,
            source text NOT NULL DEFAULT 'chat',
            requests bigint NOT NULL,
            input_tokens bigint NOT NULL,
            cached_input_tokens bigint NOT NULL,
            output_tokens bigint NOT NULL,
            cost_micros bigint NOT NULL,
            estimated_tokens bigint NOT NULL DEFAULT 0,
            estimated_cost_micros bigint NOT NULL DEFAULT 0,
            title_tokens bigint NOT NULL DEFAULT 0,
            title_cost_micros bigint NOT NULL DEFAULT 0,
            reasoning_tokens bigint NOT NULL DEFAULT 0,
            document_tokens bigint NOT NULL DEFAULT 0,
            PRIMARY KEY (day, user_id, model, source))
        """,
        "CREATE INDEX usage_daily_by_user ON usage_daily (user_id, day, cost_micros)",
        """
        CREATE INDEX usage_daily_by_day_model ON usage_daily (day, model, requests, input_tokens, cached_input_tokens,
            output_tokens, cost_micros)
        """,
        """
        CREATE TABLE prompts (
            id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            user_id bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            title text NOT NULL,
            command text NOT NULL,
            body text NOT NULL,
            visibility text NOT NULL DEFAULT 'private',
            created_at timestamptz NOT NULL,
            updated_at timestamptz NOT NULL,
            UNIQUE (user_id, command))
        """,
        """
        CREATE TABLE prompt_groups (
            prompt_id bigint NOT NULL REFERENCES prompts(id) ON DELETE CASCADE,
            group_id bigint NOT NULL REFERENCES user_groups(id) ON DELETE CASCADE,
            PRIMARY KEY (prompt_id, group_id))
        """,
        "CREATE INDEX prompt_groups_by_group ON prompt_groups (group_id)",
        """
        CREATE TABLE knowledge_collections (
            id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            user_id bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            name text NOT NULL,
            description text NOT NULL DEFAULT '',
            created_at timestamptz NOT NULL,
            updated_at timestamptz NOT NULL)
        """,
        "CREATE INDEX knowledge_collections_by_user ON knowledge_collections (user_id)",
        """
        CREATE TABLE conversation_collections (
            conversation_id bigint NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
            collection_id bigint NOT NULL REFERENCES knowledge_collections(id) ON DELETE CASCADE,
            PRIMARY KEY (conversation_id, collection_id))
        """,
        "CREATE INDEX conversation_collections_by_collection ON conversation_collections (collection_id)",
        """
        CREATE TABLE assistant_collections (
            assistant_id bigint NOT NULL REFERENCES assistants(id) ON DELETE CASCADE,
            collection_id bigint NOT NULL REFERENCES knowledge_collections(id) ON DELETE CASCADE,
            PRIMARY KEY (assistant_id, collection_id))
        """,
        "CREATE INDEX assistant_collections_by_collection ON assistant_collections (collection_id)",
        """
        CREATE TABLE documents (
            id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            user_id bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            conversation_id bigint REFERENCES conversations(id) ON DELETE CASCADE,
            message_id bigint REFERENCES messages(id) ON DELETE CASCADE,
            collection_id bigint REFERENCES knowledge_collections(id) ON DELETE CASCADE,
            position bigint NOT NULL DEFAULT 0,
            name text NOT NULL,
            kind text NOT NULL,
            byte_count bigint NOT NULL,
            digest text NOT NULL,
            status text NOT NULL DEFAULT 'reading',
            failure text,
            page_count bigint NOT NULL DEFAULT 0,
            token_count bigint NOT NULL DEFAULT 0,
            text_bytes bigint NOT NULL DEFAULT 0,
            data bytea NOT NULL,
            created_at timestamptz NOT NULL)
        """,
        "CREATE INDEX documents_by_user ON documents (user_id, created_at)",
        "CREATE INDEX documents_by_conversation ON documents (conversation_id, message_id)",
        "CREATE INDEX documents_by_collection ON documents (collection_id) WHERE collection_id IS NOT NULL",
        """
        CREATE TABLE document_pages (
            document_id bigint NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
            page bigint NOT NULL,
            text text NOT NULL,
            PRIMARY KEY (document_id, page))
        """,
        """
        CREATE TABLE document_chunks (
            id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            document_id bigint NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
            ordinal bigint NOT NULL,
            page bigint NOT NULL,
            tokens bigint NOT NULL,
            text text NOT NULL)
        """,
        "CREATE INDEX document_chunks_by_document ON document_chunks (document_id, ordinal)",
        """
        CREATE TABLE tool_choices (
            server_id text NOT NULL,
            tool text NOT NULL,
            enabled boolean NOT NULL,
            confirm boolean NOT NULL,
            PRIMARY KEY (server_id, tool))
        """,
    ]

    /// Search: a `tsvector` of each finished message (not held from search), each title and each document chunk, kept
    /// by PostgreSQL itself, with GIN indexes. The `parley_search` configuration is `simple` (no language's stems, as
    /// FTS5's `unicode61`) with accents removed first (`unaccent`, a trusted extension the database's owner may add).
    static let search = [
        "CREATE EXTENSION IF NOT EXISTS unaccent",
        "CREATE TEXT SEARCH CONFIGURATION parley_search (COPY = simple)",
        """
        ALTER TEXT SEARCH CONFIGURATION parley_search ALTER MAPPING FOR asciiword, word, numword, asciihword, hword,
            numhword, hword_asciipart, hword_part, hword_numpart WITH unaccent, simple
        """,
        """
        ALTER TABLE messages ADD COLUMN search tsvector GENERATED ALWAYS AS (
            CASE WHEN status <> 'streaming' AND NOT search_held THEN to_tsvector('parley_search', content) END) STORED
        """,
        "CREATE INDEX messages_search ON messages USING gin (search)",
        "ALTER TABLE conversations ADD COLUMN search tsvector GENERATED ALWAYS AS (to_tsvector('parley_search', title)) STORED",
        "CREATE INDEX conversations_search ON conversations USING gin (search)",
        "ALTER TABLE document_chunks ADD COLUMN search tsvector GENERATED ALWAYS AS (to_tsvector('parley_search', text)) STORED",
        "CREATE INDEX document_chunks_search ON document_chunks USING gin (search)",
    ]

    /// The triggers that keep each user's stored bytes (finished messages' text, attachments, documents) and each
    /// conversation's `uses_knowledge` flag, as SQLite's do; and the one that frees attachment bytes no row uses.
    static let bookkeeping = [
        """
        CREATE FUNCTION parley_message_bytes(content text, reasoning text, status text) RETURNS bigint
        LANGUAGE sql IMMUTABLE AS $$
            SELECT CASE WHEN status <> 'streaming' THEN octet_length(content) + COALESCE(octet_length(reasoning), 0)
                   ELSE 0 END
        $$
        """,
        """
        CREATE FUNCTION parley_messages_stored() RETURNS trigger LANGUAGE plpgsql AS $$
        DECLARE
            change bigint := 0;
            conversation bigint;
        BEGIN
            IF TG_OP IN ('UPDATE', 'DELETE') THEN
                change := change - parley_message_bytes(OLD.content, OLD.reasoning, OLD.status);
                conversation := OLD.conversation_id;
            END IF;
            IF TG_OP IN ('INSERT', 'UPDATE') THEN
                change := change + parley_message_bytes(NEW.content, NEW.reasoning, NEW.status);
                conversation := NEW.conversation_id;
            END IF;
            IF change <> 0 THEN
                UPDATE users SET stored_bytes = stored_bytes + change
                WHERE id = (SELECT user_id FROM conversations WHERE id = conversation);
            END IF;
            RETURN NULL;
        END
        $$
        """,
        """
        CREATE TRIGGER messages_stored AFTER INSERT OR UPDATE OF content, reasoning, status OR DELETE ON messages
        FOR EACH ROW EXECUTE FUNCTION parley_messages_stored()
        """,
        // A conversation's messages are counted off before it goes: the cascade deletes them once it is gone, when
        // their own trigger finds no user to count them off.
        """
        CREATE FUNCTION parley_conversations_stored() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            UPDATE users SET stored_bytes = stored_bytes - COALESCE((
                SELECT SUM(parley_message_bytes(content, reasoning, status)) FROM messages
                WHERE conversation_id = OLD.id), 0)
            WHERE id = OLD.user_id;
            RETURN OLD;
        END
        $$
        """,
        """
        CREATE TRIGGER conversations_stored BEFORE DELETE ON conversations
        FOR EACH ROW EXECUTE FUNCTION parley_conversations_stored()
        """,
        """
        CREATE FUNCTION parley_attachments_stored() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF TG_OP = 'DELETE' THEN
                UPDATE users SET stored_bytes = stored_bytes - OLD.byte_count WHERE id = OLD.user_id;
            ELSE
                UPDATE users SET stored_bytes = stored_bytes + NEW.byte_count WHERE id = NEW.user_id;
            END IF;
            RETURN NULL;
        END
        $$
        """,
        """
        CREATE TRIGGER attachments_stored AFTER INSERT OR DELETE ON attachments
        FOR EACH ROW EXECUTE FUNCTION parley_attachments_stored()
        """,
        """
        CREATE FUNCTION parley_documents_stored() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF TG_OP IN ('UPDATE', 'DELETE') THEN
                UPDATE users SET stored_bytes = stored_bytes - OLD.byte_count - OLD.text_bytes WHERE id = OLD.user_id;
            END IF;
            IF TG_OP IN ('INSERT', 'UPDATE') THEN
                UPDATE users SET stored_bytes = stored_bytes + NEW.byte_count + NEW.text_bytes WHERE id = NEW.user_id;
            END IF;
            RETURN NULL;
        END
        $$
        """,
        """
        CREATE TRIGGER documents_stored AFTER INSERT OR UPDATE OF byte_count, text_bytes OR DELETE ON documents
        FOR EACH ROW EXECUTE FUNCTION parley_documents_stored()
        """,
        """
        CREATE FUNCTION parley_attachment_data_released() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            DELETE FROM attachment_data WHERE id = OLD.data_id
                AND NOT EXISTS (SELECT 1 FROM attachments WHERE data_id = OLD.data_id);
            RETURN NULL;
        END
        $$
        """,
        """
        CREATE TRIGGER attachments_release_data AFTER DELETE ON attachments
        FOR EACH ROW EXECUTE FUNCTION parley_attachment_data_released()
        """,
        """
        CREATE FUNCTION parley_knowledge_of_conversation(conversation bigint) RETURNS void LANGUAGE sql AS $$
            UPDATE conversations c SET uses_knowledge =
                EXISTS (SELECT 1 FROM conversation_collections WHERE conversation_id = c.id)
                OR EXISTS (SELECT 1 FROM assistant_collections a WHERE a.assistant_id = c.assistant_id)
            WHERE c.id = conversation
        $$
        """,
        """
        CREATE FUNCTION parley_conversation_collections_changed() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF TG_OP = 'DELETE' THEN
                PERFORM parley_knowledge_of_conversation(OLD.conversation_id);
            ELSE
                PERFORM parley_knowledge_of_conversation(NEW.conversation_id);
            END IF;
            RETURN NULL;
        END
        $$
        """,
        """
        CREATE TRIGGER conversation_collections_knowledge AFTER INSERT OR DELETE ON conversation_collections
        FOR EACH ROW EXECUTE FUNCTION parley_conversation_collections_changed()
        """,
        """
        CREATE FUNCTION parley_assistant_collections_changed() RETURNS trigger LANGUAGE plpgsql AS $$
        DECLARE
            assistant bigint;
        BEGIN
            IF TG_OP = 'DELETE' THEN assistant := OLD.assistant_id; ELSE assistant := NEW.assistant_id; END IF;
            PERFORM parley_knowledge_of_conversation(id) FROM conversations WHERE assistant_id = assistant;
            RETURN NULL;
        END
        $$
        """,
        """
        CREATE TRIGGER assistant_collections_knowledge AFTER INSERT OR DELETE ON assistant_collections
        FOR EACH ROW EXECUTE FUNCTION parley_assistant_collections_changed()
        """,
        """
        CREATE FUNCTION parley_conversation_started() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            NEW.uses_knowledge := NEW.assistant_id IS NOT NULL
                AND EXISTS (SELECT 1 FROM assistant_collections WHERE assistant_id = NEW.assistant_id);
            RETURN NEW;
        END
        $$
        """,
        """
        CREATE TRIGGER conversations_start_with_knowledge BEFORE INSERT ON conversations
        FOR EACH ROW EXECUTE FUNCTION parley_conversation_started()
        """,
    ]
}
