import GRDB

/// The schema, one migration per change; later features add their own.
enum Migrations {
    /// Every migration in order.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: accounts, conversations, messages") { db in
            try db.execute(
                sql: """
                    CREATE TABLE settings (
                        key TEXT PRIMARY KEY NOT NULL,
                        value TEXT NOT NULL
                    );
                    CREATE TABLE users (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        email TEXT NOT NULL UNIQUE COLLATE NOCASE,
                        password_hash TEXT NOT NULL,
                        is_admin BOOLEAN NOT NULL DEFAULT 0,
                        is_disabled BOOLEAN NOT NULL DEFAULT 0,
                        created_at DATETIME NOT NULL
                    );
                    CREATE TABLE sessions (
                        id TEXT PRIMARY KEY NOT NULL,
                        user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                        created_at DATETIME NOT NULL,
                        expires_at DATETIME NOT NULL
                    );
                    CREATE INDEX sessions_by_user ON sessions(user_id);
                    CREATE TABLE conversations (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                        title TEXT NOT NULL,
                        model TEXT NOT NULL,
                        system_prompt TEXT NOT NULL DEFAULT '',
                        created_at DATETIME NOT NULL,
                        updated_at DATETIME NOT NULL
                    );
                    CREATE INDEX conversations_by_activity ON conversations(user_id, updated_at, id);
                    CREATE TABLE messages (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
                        role TEXT NOT NULL,
                        content TEXT NOT NULL,
                        status TEXT NOT NULL,
                        model TEXT NOT NULL,
                        request_id TEXT,
                        parent_id INTEGER,
                        prompt_tokens INTEGER NOT NULL DEFAULT 0,
                        completion_tokens INTEGER NOT NULL DEFAULT 0,
                        cost_usd REAL NOT NULL DEFAULT 0,
                        usage_estimated BOOLEAN NOT NULL DEFAULT 0,
                        error_code TEXT,
                        error_message TEXT,
                        created_at DATETIME NOT NULL,
                        updated_at DATETIME NOT NULL
                    );
                    CREATE INDEX messages_by_conversation ON messages(conversation_id, id);
                    CREATE UNIQUE INDEX messages_by_request ON messages(conversation_id, request_id) WHERE request_id IS NOT NULL;
                    CREATE INDEX messages_streaming ON messages(status) WHERE status = 'streaming';
                    """)
        }
        migrator.registerMigration("v2: shares") { db in
            // A share keeps its own copy of the messages; attachments will hang off `share_messages.id`.
            try db.execute(
                sql: """
                    CREATE TABLE shares (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        token_hash TEXT NOT NULL UNIQUE,
                        user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                        conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
                        title TEXT NOT NULL,
                        model TEXT NOT NULL,
                        author_name TEXT,
                        created_at DATETIME NOT NULL,
                        snapshot_at DATETIME NOT NULL,
                        expires_at DATETIME,
                        views INTEGER NOT NULL DEFAULT 0
                    );
                    CREATE INDEX shares_by_owner ON shares(user_id, id);
                    CREATE INDEX shares_by_conversation ON shares(conversation_id);
                    CREATE TABLE share_messages (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        share_id INTEGER NOT NULL REFERENCES shares(id) ON DELETE CASCADE,
                        position INTEGER NOT NULL,
                        role TEXT NOT NULL,
                        content TEXT NOT NULL,
                        status TEXT NOT NULL,
                        model TEXT NOT NULL,
                        created_at DATETIME NOT NULL,
                        UNIQUE (share_id, position)
                    );
                    """)
        }
        migrator.registerMigration("v3: search, pins and archive") { db in
            // Full-text indexes over message text and conversation titles, kept in sync by triggers. A reply is
            // indexed once it stops streaming, so the partial text saved every second is never re-indexed.
            try db.execute(
                sql: """
                    ALTER TABLE conversations ADD COLUMN pinned BOOLEAN NOT NULL DEFAULT 0;
                    ALTER TABLE conversations ADD COLUMN archived BOOLEAN NOT NULL DEFAULT 0;
                    DROP INDEX conversations_by_activity;
                    CREATE INDEX conversations_by_list_order ON conversations(user_id, archived, pinned, updated_at, id);

                    CREATE VIRTUAL TABLE messages_fts USING fts5(
                        content, content = 'messages', content_rowid = 'id', tokenize = 'unicode61 remove_diacritics 2');
                    CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages WHEN new.status != 'streaming' BEGIN
                        INSERT INTO messages_fts (rowid, content) VALUES (new.id, new.content);
                    END;
                    CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages WHEN old.status != 'streaming' BEGIN
                        INSERT INTO messages_fts (messages_fts, rowid, content) VALUES ('delete', old.id, old.content);
                    END;
                    CREATE TRIGGER messages_fts_update AFTER UPDATE OF content, status ON messages
                    WHEN old.status != 'streaming' OR new.status != 'streaming' BEGIN
                        INSERT INTO messages_fts (messages_fts, rowid, content)
                            SELECT 'delete', old.id, old.content WHERE old.status != 'streaming';
                        INSERT INTO messages_fts (rowid, content) SELECT new.id, new.content WHERE new.status != 'streaming';
                    END;
                    INSERT INTO messages_fts (rowid, content) SELECT id, content FROM messages WHERE status != 'streaming';

                    CREATE VIRTUAL TABLE conversations_fts USING fts5(
                        title, content = 'conversations', content_rowid = 'id', tokenize = 'unicode61 remove_diacritics 2');
                    CREATE TRIGGER conversations_fts_insert AFTER INSERT ON conversations BEGIN
                        INSERT INTO conversations_fts (rowid, title) VALUES (new.id, new.title);
                    END;
                    CREATE TRIGGER conversations_fts_delete AFTER DELETE ON conversations BEGIN
                        INSERT INTO conversations_fts (conversations_fts, rowid, title) VALUES ('delete', old.id, old.title);
                    END;
                    CREATE TRIGGER conversations_fts_update AFTER UPDATE OF title ON conversations BEGIN
                        INSERT INTO conversations_fts (conversations_fts, rowid, title) VALUES ('delete', old.id, old.title);
                        INSERT INTO conversations_fts (rowid, title) VALUES (new.id, new.title);
                    END;
                    INSERT INTO conversations_fts (rowid, title) SELECT id, title FROM conversations;
                    """)
        }
        migrator.registerMigration("v4: usage accounting") { db in
            // Money is integer micro-dollars. A reply records the price version it was charged at, and the same
            // transaction adds it to `usage_daily`, which the dashboard and budget checks read instead of messages.
            // The rollup keeps the spend of deleted users (no foreign key). Usage is counted from this version on.
            try db.execute(
                sql: """
                    CREATE TABLE model_prices (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        model_id TEXT NOT NULL,
                        input INTEGER NOT NULL,
                        cached_input INTEGER NOT NULL,
                        output INTEGER NOT NULL,
                        effective_from DATETIME NOT NULL
                    );
                    CREATE INDEX model_prices_by_model ON model_prices(model_id, effective_from, id);

                    ALTER TABLE messages ADD COLUMN provider TEXT;
                    ALTER TABLE messages ADD COLUMN cached_prompt_tokens INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE messages ADD COLUMN cost_micros INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE messages ADD COLUMN price_version_id INTEGER REFERENCES model_prices(id);
                    UPDATE messages SET cost_micros = CAST(round(cost_usd * 1000000) AS INTEGER) WHERE cost_usd != 0;
                    ALTER TABLE messages DROP COLUMN cost_usd;

                    CREATE TABLE usage_daily (
                        day TEXT NOT NULL,
                        user_id INTEGER NOT NULL,
                        model TEXT NOT NULL,
                        requests INTEGER NOT NULL,
                        input_tokens INTEGER NOT NULL,
                        cached_input_tokens INTEGER NOT NULL,
                        output_tokens INTEGER NOT NULL,
                        cost_micros INTEGER NOT NULL,
                        PRIMARY KEY (day, user_id, model)
                    ) WITHOUT ROWID;
                    -- Covers the budget check and each user's spend (index only); the next one covers the dashboard's
                    -- spend per day and model, read in order without a sort.
                    CREATE INDEX usage_daily_by_user ON usage_daily(user_id, day, cost_micros);
                    CREATE INDEX usage_daily_by_day_model ON usage_daily(day, model, requests, input_tokens, cached_input_tokens,
                                                                         output_tokens, cost_micros);

                    ALTER TABLE users ADD COLUMN monthly_budget_micros INTEGER;
                    """)
        }
        migrator.registerMigration("v5: attachments") { db in
            // Images live in the database like everything else. An attachment belongs to one message and goes with it
            // (deleting a conversation or regenerating a reply deletes its images); `conversation_id` is the lookup key
            // of a page of messages. A share's snapshot points at the attachments its messages showed.
            try db.execute(
                sql: """
                    CREATE TABLE attachments (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                        conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
                        message_id INTEGER NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
                        position INTEGER NOT NULL,
                        content_type TEXT NOT NULL,
                        file_name TEXT NOT NULL,
                        byte_count INTEGER NOT NULL,
                        width INTEGER NOT NULL,
                        height INTEGER NOT NULL,
                        digest TEXT NOT NULL,
                        data BLOB NOT NULL,
                        created_at DATETIME NOT NULL,
                        UNIQUE (message_id, position)
                    );
                    CREATE INDEX attachments_by_conversation ON attachments(conversation_id, message_id);
                    CREATE TABLE share_attachments (
                        share_message_id INTEGER NOT NULL REFERENCES share_messages(id) ON DELETE CASCADE,
                        attachment_id INTEGER NOT NULL REFERENCES attachments(id) ON DELETE CASCADE,
                        position INTEGER NOT NULL,
                        PRIMARY KEY (share_message_id, position)
                    );
                    CREATE INDEX share_attachments_by_attachment ON share_attachments(attachment_id);
                    """)
        }
        migrator.registerMigration("v6: questions indexed with their replies") { db in
            // FTS5 writes a new index segment at every commit that indexes something, and that was about half of a
            // send's page writes: one segment for the question, when it was written, and one for the reply. A question
            // is now held out of the index (`search_held`) until its reply ends, and both are indexed in that commit.
            try db.execute(
                sql: """
                    ALTER TABLE messages ADD COLUMN search_held BOOLEAN NOT NULL DEFAULT 0;
                    DROP TRIGGER messages_fts_insert;
                    DROP TRIGGER messages_fts_delete;
                    DROP TRIGGER messages_fts_update;
                    CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages
                    WHEN new.status != 'streaming' AND NOT new.search_held BEGIN
                        INSERT INTO messages_fts (rowid, content) VALUES (new.id, new.content);
                    END;
                    CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages
                    WHEN old.status != 'streaming' AND NOT old.search_held BEGIN
                        INSERT INTO messages_fts (messages_fts, rowid, content) VALUES ('delete', old.id, old.content);
                    END;
                    CREATE TRIGGER messages_fts_update AFTER UPDATE OF content, status, search_held ON messages
                    WHEN (old.status != 'streaming' AND NOT old.search_held) OR (new.status != 'streaming' AND NOT new.search_held) BEGIN
                        INSERT INTO messages_fts (messages_fts, rowid, content)
                            SELECT 'delete', old.id, old.content WHERE old.status != 'streaming' AND NOT old.search_held;
                        INSERT INTO messages_fts (rowid, content)
                            SELECT new.id, new.content WHERE new.status != 'streaming' AND NOT new.search_held;
                    END;
                    """)
        }
        migrator.registerMigration("v7: image bytes held once, and each user's stored bytes") { db in
            // An image's bytes move to `attachment_data`, which attachments point at: a fork of a share references the
            // sharer's bytes instead of copying them, and the bytes go when the last attachment pointing at them does.
            // `attachments_by_user` sums a user's stored image bytes (the storage quota) from the index alone.
            try db.execute(
                sql: """
                    CREATE TABLE attachment_data (id INTEGER PRIMARY KEY, data BLOB NOT NULL);
                    INSERT INTO attachment_data (id, data) SELECT id, data FROM attachments;
                    ALTER TABLE attachments ADD COLUMN data_id INTEGER REFERENCES attachment_data(id);
                    UPDATE attachments SET data_id = id;
                    ALTER TABLE attachments DROP COLUMN data;
                    CREATE INDEX attachments_by_data ON attachments(data_id);
                    CREATE INDEX attachments_by_user ON attachments(user_id, byte_count);
                    CREATE TRIGGER attachments_release_data AFTER DELETE ON attachments BEGIN
                        DELETE FROM attachment_data WHERE id = old.data_id
                            AND NOT EXISTS (SELECT 1 FROM attachments WHERE data_id = old.data_id);
                    END;
                    """)
            // `stored_bytes`, kept by triggers, is what the storage quota counts: the bytes of a user's images and of
            // their messages' text once written (a streaming reply counts when it ends, so its progress saves cost
            // nothing here). A deleted conversation's text is taken off before its messages go: the cascade that
            // deletes them runs after the conversation row, when the messages' trigger can no longer find its owner.
            try db.execute(
                sql: """
                    ALTER TABLE users ADD COLUMN stored_bytes INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE users ADD COLUMN storage_quota_bytes INTEGER;
                    UPDATE users SET stored_bytes =
                        COALESCE((SELECT SUM(length(CAST(m.content AS BLOB))) FROM messages m JOIN conversations c ON c.id = m.conversation_id
                                  WHERE c.user_id = users.id AND m.status != 'streaming'), 0)
                        + COALESCE((SELECT SUM(byte_count) FROM attachments WHERE user_id = users.id), 0);
                    CREATE TRIGGER messages_stored_insert AFTER INSERT ON messages WHEN new.status != 'streaming' BEGIN
                        UPDATE users SET stored_bytes = stored_bytes + length(CAST(new.content AS BLOB))
                        WHERE id = (SELECT user_id FROM conversations WHERE id = new.conversation_id);
                    END;
                    CREATE TRIGGER messages_stored_update AFTER UPDATE OF content, status ON messages
                    WHEN old.status != 'streaming' OR new.status != 'streaming' BEGIN
                        UPDATE users SET stored_bytes = stored_bytes
                            - (CASE WHEN old.status != 'streaming' THEN length(CAST(old.content AS BLOB)) ELSE 0 END)
                            + (CASE WHEN new.status != 'streaming' THEN length(CAST(new.content AS BLOB)) ELSE 0 END)
                        WHERE id = (SELECT user_id FROM conversations WHERE id = new.conversation_id);
                    END;
                    CREATE TRIGGER messages_stored_delete AFTER DELETE ON messages WHEN old.status != 'streaming' BEGIN
                        UPDATE users SET stored_bytes = stored_bytes - length(CAST(old.content AS BLOB))
                        WHERE id = (SELECT user_id FROM conversations WHERE id = old.conversation_id);
                    END;
                    CREATE TRIGGER conversations_stored_delete BEFORE DELETE ON conversations BEGIN
                        UPDATE users SET stored_bytes = stored_bytes - COALESCE((SELECT SUM(length(CAST(content AS BLOB)))
                            FROM messages WHERE conversation_id = old.id AND status != 'streaming'), 0)
                        WHERE id = old.user_id;
                    END;
                    CREATE TRIGGER attachments_stored_insert AFTER INSERT ON attachments BEGIN
                        UPDATE users SET stored_bytes = stored_bytes + new.byte_count WHERE id = new.user_id;
                    END;
                    CREATE TRIGGER attachments_stored_delete AFTER DELETE ON attachments BEGIN
                        UPDATE users SET stored_bytes = stored_bytes - old.byte_count WHERE id = old.user_id;
                    END;
                    """)
        }
        migrator.registerMigration("v8: the estimated part of usage, and titles' usage") { db in
            // Replies whose provider reported no usage are charged an estimate; the rollup keeps how much of each day's
            // tokens and cost that is, counted from the replies still stored (their day is the day their reply ended).
            // A title request's usage counts in the rollup (marked as titles') and in its conversation's cost.
            try db.execute(
                sql: """
                    ALTER TABLE usage_daily ADD COLUMN estimated_tokens INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE usage_daily ADD COLUMN estimated_cost_micros INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE usage_daily ADD COLUMN title_tokens INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE usage_daily ADD COLUMN title_cost_micros INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE conversations ADD COLUMN title_cost_micros INTEGER NOT NULL DEFAULT 0;
                    UPDATE usage_daily SET estimated_tokens = e.tokens, estimated_cost_micros = e.cost FROM (
                        SELECT substr(m.updated_at, 1, 10) AS day, c.user_id, m.model,
                               SUM(m.prompt_tokens + m.completion_tokens) AS tokens, SUM(m.cost_micros) AS cost
                        FROM messages m JOIN conversations c ON c.id = m.conversation_id
                        WHERE m.usage_estimated AND m.price_version_id IS NOT NULL
                        GROUP BY 1, 2, 3) AS e
                    WHERE e.day = usage_daily.day AND e.user_id = usage_daily.user_id AND e.model = usage_daily.model;
                    """)
        }
        migrator.registerMigration("v9: conversations as trees") { db in
            // Every message hangs off the one before it in its branch; a conversation shows the branch that ends at
            // its current leaf. Conversations so far were one branch: each message's parent is the message before it.
            try db.execute(
                sql: """
                    ALTER TABLE conversations ADD COLUMN current_leaf_id INTEGER;
                    UPDATE messages SET parent_id = chain.previous FROM (
                        SELECT id, LAG(id) OVER (PARTITION BY conversation_id ORDER BY id) AS previous FROM messages
                    ) AS chain
                    WHERE chain.id = messages.id;
                    UPDATE conversations SET current_leaf_id = (
                        SELECT MAX(id) FROM messages WHERE conversation_id = conversations.id);
                    """)
        }
        migrator.registerMigration("v10: reasoning") { db in
            // A reply's reasoning is kept apart from its text (NULL when it showed none), out of the search index (whose
            // triggers read `content` only), and counted in its owner's stored bytes like its text. Its tokens are a
            // part of the completion's (priced as output), kept for the reply and in the rollup.
            try db.execute(
                sql: """
                    ALTER TABLE messages ADD COLUMN reasoning TEXT;
                    ALTER TABLE messages ADD COLUMN reasoning_tokens INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE usage_daily ADD COLUMN reasoning_tokens INTEGER NOT NULL DEFAULT 0;
                    DROP TRIGGER messages_stored_insert;
                    DROP TRIGGER messages_stored_update;
                    DROP TRIGGER messages_stored_delete;
                    DROP TRIGGER conversations_stored_delete;
                    CREATE TRIGGER messages_stored_insert AFTER INSERT ON messages WHEN new.status != 'streaming' BEGIN
                        UPDATE users SET stored_bytes = stored_bytes + length(CAST(new.content AS BLOB))
                            + COALESCE(length(CAST(new.reasoning AS BLOB)), 0)
                        WHERE id = (SELECT user_id FROM conversations WHERE id = new.conversation_id);
                    END;
                    CREATE TRIGGER messages_stored_update AFTER UPDATE OF content, reasoning, status ON messages
                    WHEN old.status != 'streaming' OR new.status != 'streaming' BEGIN
                        UPDATE users SET stored_bytes = stored_bytes
                            - (CASE WHEN old.status != 'streaming' THEN length(CAST(old.content AS BLOB))
                                   + COALESCE(length(CAST(old.reasoning AS BLOB)), 0) ELSE 0 END)
                            + (CASE WHEN new.status != 'streaming' THEN length(CAST(new.content AS BLOB))
                                   + COALESCE(length(CAST(new.reasoning AS BLOB)), 0) ELSE 0 END)
                        WHERE id = (SELECT user_id FROM conversations WHERE id = new.conversation_id);
                    END;
                    CREATE TRIGGER messages_stored_delete AFTER DELETE ON messages WHEN old.status != 'streaming' BEGIN
                        UPDATE users SET stored_bytes = stored_bytes - length(CAST(old.content AS BLOB))
                            - COALESCE(length(CAST(old.reasoning AS BLOB)), 0)
                        WHERE id = (SELECT user_id FROM conversations WHERE id = old.conversation_id);
                    END;
                    CREATE TRIGGER conversations_stored_delete BEFORE DELETE ON conversations BEGIN
                        UPDATE users SET stored_bytes = stored_bytes - COALESCE((SELECT SUM(length(CAST(content AS BLOB))
                            + COALESCE(length(CAST(reasoning AS BLOB)), 0))
                            FROM messages WHERE conversation_id = old.id AND status != 'streaming'), 0)
                        WHERE id = old.user_id;
                    END;
                    """)
        }
        migrator.registerMigration("v11: reasoning time and shared reasoning") { db in
            // How long a reply reasoned, in milliseconds (NULL when it showed no reasoning, and for replies stored
            // before it was kept). A share includes the reasoning only when its owner chose to: its snapshot copies a
            // message's reasoning and time into `share_messages` for such a share alone, and NULL otherwise, so a
            // share without it holds none to leak (nor do the shares made before, whose rows get NULL).
            try db.execute(
                sql: """
                    ALTER TABLE messages ADD COLUMN reasoning_ms INTEGER;
                    ALTER TABLE shares ADD COLUMN include_reasoning BOOLEAN NOT NULL DEFAULT 0;
                    ALTER TABLE share_messages ADD COLUMN reasoning TEXT;
                    ALTER TABLE share_messages ADD COLUMN reasoning_ms INTEGER;
                    """)
        }
        migrator.registerMigration("v12: display names, session details and invites") { db in
            // A display name (NULL: the email is shown). A session keeps the device and address it began from and
            // when it was last used (written at most every few minutes). An invite is stored as the SHA-256 of its
            // token alone; it is used once, and an admin's deletion leaves the invites they made.
            try db.execute(
                sql: """
                    ALTER TABLE users ADD COLUMN display_name TEXT;
                    ALTER TABLE sessions ADD COLUMN user_agent TEXT;
                    ALTER TABLE sessions ADD COLUMN address TEXT;
                    ALTER TABLE sessions ADD COLUMN last_used_at DATETIME;
                    CREATE TABLE invites (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        token_hash TEXT NOT NULL UNIQUE,
                        email TEXT COLLATE NOCASE,
                        created_by INTEGER REFERENCES users(id) ON DELETE SET NULL,
                        created_at DATETIME NOT NULL,
                        expires_at DATETIME NOT NULL,
                        used_at DATETIME,
                        used_by INTEGER REFERENCES users(id) ON DELETE SET NULL
                    );
                    """)
        }
        migrator.registerMigration("v13: single sign-on and groups") { db in
            // An account may be linked to one subject at the identity provider. Groups are made in Parley or copied
            // from the provider (`from_sso`: a provider group of the same name takes a Parley group over). A model
            // with rows in `model_access` is open to those groups' members alone; one with none, to everybody.
            try db.execute(
                sql: """
                    ALTER TABLE users ADD COLUMN sso_subject TEXT;
                    CREATE UNIQUE INDEX users_by_sso_subject ON users(sso_subject) WHERE sso_subject IS NOT NULL;
                    CREATE TABLE user_groups (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        name TEXT NOT NULL UNIQUE COLLATE NOCASE,
                        from_sso BOOLEAN NOT NULL DEFAULT 0,
                        monthly_budget_micros INTEGER,
                        created_at DATETIME NOT NULL
                    );
                    CREATE TABLE group_members (
                        group_id INTEGER NOT NULL REFERENCES user_groups(id) ON DELETE CASCADE,
                        user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                        PRIMARY KEY (group_id, user_id)
                    ) WITHOUT ROWID;
                    CREATE INDEX group_members_by_user ON group_members(user_id, group_id);
                    CREATE TABLE model_access (
                        model TEXT NOT NULL,
                        group_id INTEGER NOT NULL REFERENCES user_groups(id) ON DELETE CASCADE,
                        PRIMARY KEY (model, group_id)
                    ) WITHOUT ROWID;
                    """)
        }
        migrator.registerMigration("v14: personal API keys") { db in
            // A key is stored as the SHA-256 of its text alone; it goes with its user.
            try db.execute(
                sql: """
                    CREATE TABLE api_keys (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                        name TEXT NOT NULL,
                        digest TEXT NOT NULL UNIQUE,
                        created_at DATETIME NOT NULL,
                        last_used_at DATETIME,
                        expires_at DATETIME
                    );
                    CREATE INDEX api_keys_by_user ON api_keys(user_id);
                    """)
        }
        migrator.registerMigration("v15: API completions") { db in
            // A completion asked through the OpenAI-compatible endpoint: no conversation holds it, so this row is its
            // cost record (and, while `streaming`, what keeps a user with a budget to one running reply or completion).
            // The rollup gains a `source` in its key, `chat` (replies and titles) or `api`, so that each day, user and
            // model has a row of each; it is rebuilt for that (SQLite cannot change a primary key in place).
            try db.execute(
                sql: """
                    CREATE TABLE api_completions (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                        key_id INTEGER REFERENCES api_keys(id) ON DELETE SET NULL,
                        model TEXT NOT NULL,
                        provider TEXT,
                        status TEXT NOT NULL,
                        prompt_tokens INTEGER NOT NULL DEFAULT 0,
                        cached_prompt_tokens INTEGER NOT NULL DEFAULT 0,
                        completion_tokens INTEGER NOT NULL DEFAULT 0,
                        reasoning_tokens INTEGER NOT NULL DEFAULT 0,
                        cost_micros INTEGER NOT NULL DEFAULT 0,
                        usage_estimated BOOLEAN NOT NULL DEFAULT 0,
                        price_version_id INTEGER REFERENCES model_prices(id),
                        error_code TEXT,
                        created_at DATETIME NOT NULL,
                        updated_at DATETIME NOT NULL
                    );
                    CREATE INDEX api_completions_by_user ON api_completions(user_id, created_at);
                    CREATE INDEX api_completions_streaming ON api_completions(user_id) WHERE status = 'streaming';
                    CREATE TABLE usage_daily_by_source (
                        day TEXT NOT NULL,
                        user_id INTEGER NOT NULL,
                        model TEXT NOT NULL,
                        source TEXT NOT NULL DEFAULT 'chat',
                        requests INTEGER NOT NULL,
                        input_tokens INTEGER NOT NULL,
                        cached_input_tokens INTEGER NOT NULL,
                        output_tokens INTEGER NOT NULL,
                        cost_micros INTEGER NOT NULL,
                        estimated_tokens INTEGER NOT NULL DEFAULT 0,
                        estimated_cost_micros INTEGER NOT NULL DEFAULT 0,
                        title_tokens INTEGER NOT NULL DEFAULT 0,
                        title_cost_micros INTEGER NOT NULL DEFAULT 0,
                        reasoning_tokens INTEGER NOT NULL DEFAULT 0,
                        PRIMARY KEY (day, user_id, model, source)
                    ) WITHOUT ROWID;
                    INSERT INTO usage_daily_by_source (day, user_id, model, requests, input_tokens, cached_input_tokens,
                                                       output_tokens, cost_micros, estimated_tokens, estimated_cost_micros,
                                                       title_tokens, title_cost_micros, reasoning_tokens)
                        SELECT day, user_id, model, requests, input_tokens, cached_input_tokens, output_tokens, cost_micros,
                               estimated_tokens, estimated_cost_micros, title_tokens, title_cost_micros, reasoning_tokens
                        FROM usage_daily;
                    DROP TABLE usage_daily;
                    ALTER TABLE usage_daily_by_source RENAME TO usage_daily;
                    CREATE INDEX usage_daily_by_user ON usage_daily(user_id, day, cost_micros);
                    CREATE INDEX usage_daily_by_day_model ON usage_daily(day, model, requests, input_tokens, cached_input_tokens,
                                                                         output_tokens, cost_micros);
                    """)
        }
        migrator.registerMigration("v16: generation settings") { db in
            // A conversation's own generation options, as a JSON object of the values set (NULL: none, the model's
            // defaults apply).
            try db.execute(sql: "ALTER TABLE conversations ADD COLUMN generation_settings TEXT;")
        }
        migrator.registerMigration("v17: assistants") { db in
            // An assistant is its author's, shared with no one, everyone or chosen groups (`assistant_groups`); each
            // change raises its version. A conversation started with one keeps a copy of its instructions, model and
            // settings in its own columns, and its id, name and version then; deleting the assistant keeps the name.
            try db.execute(
                sql: """
                    CREATE TABLE assistants (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        author_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                        name TEXT NOT NULL,
                        description TEXT NOT NULL DEFAULT '',
                        icon TEXT NOT NULL DEFAULT '',
                        instructions TEXT NOT NULL DEFAULT '',
                        model TEXT NOT NULL,
                        generation_settings TEXT,
                        starters TEXT NOT NULL DEFAULT '[]',
                        visibility TEXT NOT NULL DEFAULT 'private',
                        version INTEGER NOT NULL DEFAULT 1,
                        created_at DATETIME NOT NULL,
                        updated_at DATETIME NOT NULL
                    );
                    CREATE INDEX assistants_by_author ON assistants(author_id);
                    CREATE TABLE assistant_groups (
                        assistant_id INTEGER NOT NULL REFERENCES assistants(id) ON DELETE CASCADE,
                        group_id INTEGER NOT NULL REFERENCES user_groups(id) ON DELETE CASCADE,
                        PRIMARY KEY (assistant_id, group_id)
                    );
                    ALTER TABLE conversations ADD COLUMN assistant_id INTEGER REFERENCES assistants(id) ON DELETE SET NULL;
                    ALTER TABLE conversations ADD COLUMN assistant_name TEXT;
                    ALTER TABLE conversations ADD COLUMN assistant_version INTEGER;
                    CREATE INDEX conversations_by_assistant ON conversations(assistant_id) WHERE assistant_id IS NOT NULL;
                    """)
        }
        migrator.registerMigration("v18: prompt library") { db in
            // A saved prompt is its author's, called by a `/command` unique among theirs, and shared with no one,
            // everyone or chosen groups (`prompt_groups`), as assistants are.
            try db.execute(
                sql: """
                    CREATE TABLE prompts (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                        title TEXT NOT NULL,
                        command TEXT NOT NULL,
                        body TEXT NOT NULL,
                        visibility TEXT NOT NULL DEFAULT 'private',
                        created_at DATETIME NOT NULL,
                        updated_at DATETIME NOT NULL,
                        UNIQUE (user_id, command)
                    );
                    CREATE TABLE prompt_groups (
                        prompt_id INTEGER NOT NULL REFERENCES prompts(id) ON DELETE CASCADE,
                        group_id INTEGER NOT NULL REFERENCES user_groups(id) ON DELETE CASCADE,
                        PRIMARY KEY (prompt_id, group_id)
                    );
                    CREATE INDEX prompt_groups_by_group ON prompt_groups(group_id);
                    """)
        }
        migrator.registerMigration("v19: assistant icon images") { db in
            // An assistant's uploaded icon (a small PNG, JPEG, WebP or GIF) and its media type; NULL: the emoji.
            try db.execute(
                sql: """
                    ALTER TABLE assistants ADD COLUMN icon_image BLOB;
                    ALTER TABLE assistants ADD COLUMN icon_type TEXT;
                    """)
        }
        migrator.registerMigration("v20: documents and knowledge collections") { db in
            // A document is its owner's: attached to a message (uploaded in a conversation, `message_id` set once it is
            // sent), or in one of their knowledge collections. Its text is read once, off the request path: `status`
            // goes from `reading` to `ready` (pages and chunks written) or `failed` (`failure` says why). The pages
            // hold the text sent whole; the chunks, indexed by FTS5 with the search's tokenizer, are what retrieval
            // ranks. A document counts its bytes and its text's toward the storage quota.
            try db.execute(
                sql: """
                    CREATE TABLE knowledge_collections (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                        name TEXT NOT NULL,
                        description TEXT NOT NULL DEFAULT '',
                        created_at DATETIME NOT NULL,
                        updated_at DATETIME NOT NULL
                    );
                    CREATE INDEX knowledge_collections_by_user ON knowledge_collections(user_id);
                    CREATE TABLE conversation_collections (
                        conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
                        collection_id INTEGER NOT NULL REFERENCES knowledge_collections(id) ON DELETE CASCADE,
                        PRIMARY KEY (conversation_id, collection_id)
                    ) WITHOUT ROWID;
                    CREATE INDEX conversation_collections_by_collection ON conversation_collections(collection_id);
                    CREATE TABLE assistant_collections (
                        assistant_id INTEGER NOT NULL REFERENCES assistants(id) ON DELETE CASCADE,
                        collection_id INTEGER NOT NULL REFERENCES knowledge_collections(id) ON DELETE CASCADE,
                        PRIMARY KEY (assistant_id, collection_id)
                    ) WITHOUT ROWID;
                    CREATE INDEX assistant_collections_by_collection ON assistant_collections(collection_id);
                    CREATE TABLE documents (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                        conversation_id INTEGER REFERENCES conversations(id) ON DELETE CASCADE,
                        message_id INTEGER REFERENCES messages(id) ON DELETE CASCADE,
                        collection_id INTEGER REFERENCES knowledge_collections(id) ON DELETE CASCADE,
                        position INTEGER NOT NULL DEFAULT 0,
                        name TEXT NOT NULL,
                        kind TEXT NOT NULL,
                        byte_count INTEGER NOT NULL,
                        digest TEXT NOT NULL,
                        status TEXT NOT NULL DEFAULT 'reading',
                        failure TEXT,
                        page_count INTEGER NOT NULL DEFAULT 0,
                        token_count INTEGER NOT NULL DEFAULT 0,
                        text_bytes INTEGER NOT NULL DEFAULT 0,
                        data BLOB NOT NULL,
                        created_at DATETIME NOT NULL
                    );
                    CREATE INDEX documents_by_user ON documents(user_id, created_at);
                    CREATE INDEX documents_by_conversation ON documents(conversation_id, message_id);
                    CREATE INDEX documents_by_collection ON documents(collection_id) WHERE collection_id IS NOT NULL;
                    CREATE TABLE document_pages (
                        document_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
                        page INTEGER NOT NULL,
                        text TEXT NOT NULL,
                        PRIMARY KEY (document_id, page)
                    ) WITHOUT ROWID;
                    CREATE TABLE document_chunks (
                        id INTEGER PRIMARY KEY,
                        document_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
                        ordinal INTEGER NOT NULL,
                        page INTEGER NOT NULL,
                        tokens INTEGER NOT NULL,
                        text TEXT NOT NULL
                    );
                    CREATE INDEX document_chunks_by_document ON document_chunks(document_id, ordinal);
                    CREATE VIRTUAL TABLE document_chunks_fts USING fts5(
                        text, content = 'document_chunks', content_rowid = 'id', tokenize = 'unicode61 remove_diacritics 2');
                    CREATE TRIGGER document_chunks_index AFTER INSERT ON document_chunks BEGIN
                        INSERT INTO document_chunks_fts (rowid, text) VALUES (new.id, new.text);
                    END;
                    CREATE TRIGGER document_chunks_unindex AFTER DELETE ON document_chunks BEGIN
                        INSERT INTO document_chunks_fts (document_chunks_fts, rowid, text) VALUES ('delete', old.id, old.text);
                    END;
                    CREATE TRIGGER documents_stored_insert AFTER INSERT ON documents BEGIN
                        UPDATE users SET stored_bytes = stored_bytes + new.byte_count + new.text_bytes WHERE id = new.user_id;
                    END;
                    CREATE TRIGGER documents_stored_update AFTER UPDATE OF text_bytes ON documents BEGIN
                        UPDATE users SET stored_bytes = stored_bytes - old.text_bytes + new.text_bytes WHERE id = new.user_id;
                    END;
                    CREATE TRIGGER documents_stored_delete AFTER DELETE ON documents BEGIN
                        UPDATE users SET stored_bytes = stored_bytes - old.byte_count - old.text_bytes WHERE id = old.user_id;
                    END;
                    ALTER TABLE messages ADD COLUMN document_tokens INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE messages ADD COLUMN sources TEXT;
                    ALTER TABLE usage_daily ADD COLUMN document_tokens INTEGER NOT NULL DEFAULT 0;
                    """)
            // `uses_knowledge` says whether a conversation, or its assistant, may have collections attached, so that
            // a reply looks them up only then: set when one is attached, worked out again when one is taken off. It
            // may stay set after its assistant is deleted, which costs a reply one lookup that finds nothing.
            try db.execute(
                sql: """
                    ALTER TABLE conversations ADD COLUMN uses_knowledge INTEGER NOT NULL DEFAULT 0;
                    CREATE TRIGGER conversation_collections_added AFTER INSERT ON conversation_collections BEGIN
                        UPDATE conversations SET uses_knowledge = 1 WHERE id = new.conversation_id;
                    END;
                    CREATE TRIGGER conversation_collections_removed AFTER DELETE ON conversation_collections BEGIN
                        UPDATE conversations SET uses_knowledge =
                            EXISTS (SELECT 1 FROM conversation_collections WHERE conversation_id = old.conversation_id)
                            OR EXISTS (SELECT 1 FROM assistant_collections a WHERE a.assistant_id = conversations.assistant_id)
                        WHERE id = old.conversation_id;
                    END;
                    CREATE TRIGGER assistant_collections_added AFTER INSERT ON assistant_collections BEGIN
                        UPDATE conversations SET uses_knowledge = 1 WHERE assistant_id = new.assistant_id;
                    END;
                    CREATE TRIGGER assistant_collections_removed AFTER DELETE ON assistant_collections BEGIN
                        UPDATE conversations SET uses_knowledge =
                            EXISTS (SELECT 1 FROM conversation_collections c WHERE c.conversation_id = conversations.id)
                            OR EXISTS (SELECT 1 FROM assistant_collections WHERE assistant_id = old.assistant_id)
                        WHERE assistant_id = old.assistant_id;
                    END;
                    CREATE TRIGGER conversations_started_with_knowledge AFTER INSERT ON conversations
                    WHEN new.assistant_id IS NOT NULL BEGIN
                        UPDATE conversations SET uses_knowledge =
                            EXISTS (SELECT 1 FROM assistant_collections WHERE assistant_id = new.assistant_id)
                        WHERE id = new.id;
                    END;
                    """)
        }
        migrator.registerMigration("v21: tool calls") { db in
            // A reply's tool calls with how each went (JSON, as in `ToolStep`), also in a share's snapshot; the MCP
            // servers a conversation turned on (JSON list of server ids; NULL: the servers on by default).
            try db.execute(
                sql: """
                    ALTER TABLE messages ADD COLUMN tool_steps TEXT;
                    ALTER TABLE share_messages ADD COLUMN tool_steps TEXT;
                    ALTER TABLE conversations ADD COLUMN tool_servers TEXT;
                    """)
        }
        migrator.registerMigration("v22: the admin's tool choices") { db in
            // The admin page's choices for MCP servers' tools (`tool` empty: the server's, `enabled` then saying whether
            // conversations have it on until their owners choose), over `PARLEY_CONFIG`'s.
            try db.execute(
                sql: """
                    CREATE TABLE tool_choices (
                        server_id TEXT NOT NULL,
                        tool TEXT NOT NULL,
                        enabled INTEGER NOT NULL,
                        confirm INTEGER NOT NULL,
                        PRIMARY KEY (server_id, tool)
                    ) WITHOUT ROWID;
                    """)
        }
        migrator.registerMigration("v23: pending single sign-ons") { db in
            // Sign-ins gone to the identity provider, by the SHA-256 of their `state`: kept in the database, so that a
            // restart, or another instance taking the callback, finds them.
            try db.execute(
                sql: """
                    CREATE TABLE pending_sign_ins (
                        state_digest TEXT PRIMARY KEY,
                        code_verifier TEXT NOT NULL,
                        nonce TEXT NOT NULL,
                        next TEXT NOT NULL,
                        expires_at DATETIME NOT NULL
                    ) WITHOUT ROWID;
                    """)
        }
        return migrator
    }
}
