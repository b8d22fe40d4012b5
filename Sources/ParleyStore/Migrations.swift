import GRDB

/// The schema, one migration per change; later features add their own.
enum Migrations {
    /// Every migration in order.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: accounts, conversations, messages") { db in
            try db.execute(sql: """
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
        return migrator
    }
}
