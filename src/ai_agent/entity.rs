//! Tables behind agents: agents, threads, thread events, suggestions and legacy text agents.
macro_rules! no_relations {
    () => {
        #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
        pub enum Relation {}
        impl ActiveModelBehavior for ActiveModel {}
    };
}

pub mod ai_agent {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
    #[sea_orm(table_name = "ai_agent")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub id: Uuid,
        pub organization_id: Option<Uuid>,
        pub user_id: Option<Uuid>,
        pub system_source_id: Option<Uuid>,
        pub name: String,
        #[sea_orm(column_type = "Text")]
        pub persona: String,
        #[sea_orm(column_type = "Text")]
        pub goals: String,
        pub send_mode: String,
        pub attach_domain_tools: bool,
        pub tools_allowlist: Json,
        pub config_payload: Json,
        pub created_at: DateTimeUtc,
    }
    no_relations!();
}

pub mod ai_thread {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
    #[sea_orm(table_name = "ai_thread")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub id: Uuid,
        pub agent_id: Uuid,
        pub organization_id: Uuid,
        pub correlation_key: Option<String>,
        pub state: String,
        #[sea_orm(column_type = "Text", nullable)]
        pub last_error: Option<String>,
        pub created_at: DateTimeUtc,
        pub updated_at: DateTimeUtc,
        /// The worker holding the thread while it runs, and until when its lease lasts.
        pub lease_owner: Option<String>,
        pub lease_expires_at: Option<DateTimeUtc>,
        /// After a failed turn, the thread waits until this time before trying again.
        pub retry_at: Option<DateTimeUtc>,
        /// Written when an idle thread is archived; the next thread for the same key reads it.
        #[sea_orm(column_type = "Text", nullable)]
        pub summary: Option<String>,
    }
    no_relations!();
}

pub mod ai_thread_event {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
    #[sea_orm(table_name = "ai_thread_event")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub id: Uuid,
        pub thread_id: Uuid,
        pub seq: i64,
        pub kind: String,
        pub payload: Json,
        pub processed_at: Option<DateTimeUtc>,
        pub created_at: DateTimeUtc,
        /// Turns that failed over this input; at the limit it is set aside.
        pub attempts: i32,
        #[sea_orm(column_type = "Text", nullable)]
        pub error: Option<String>,
        /// Unique when set: the same inbound text is never queued twice.
        pub dedupe_key: Option<String>,
    }
    no_relations!();
}

pub mod text_agent {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
    #[sea_orm(table_name = "text_agent")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub id: Uuid,
        pub organization_id: Uuid,
        pub name: String,
        #[sea_orm(column_type = "Text")]
        pub instructions: String,
        pub auto_reply: bool,
        pub confidence_threshold: f64,
        pub created_at: DateTimeUtc,
    }
    no_relations!();
}

pub mod contact_text_agent {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
    #[sea_orm(table_name = "contact_text_agent")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub id: Uuid,
        pub contact_id: Uuid,
        pub text_agent_id: Uuid,
        pub created_at: DateTimeUtc,
    }
    no_relations!();
}

pub mod text_agent_suggestion {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
    #[sea_orm(table_name = "text_agent_suggestion")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub id: Uuid,
        pub organization_id: Uuid,
        pub text_agent_id: Option<Uuid>,
        pub ai_agent_id: Option<Uuid>,
        pub message_id: Uuid,
        pub suggestions: Json,
        pub created_at: DateTimeUtc,
        /// Unique when set: the turn's (thread, tool call) that wrote it.
        pub source_key: Option<String>,
        /// The first text sent from the set, and whether "as_written" or "edited"
        /// (migration 52); the reports' marks for its offer and its use.
        pub used_by: Option<Uuid>,
        pub used_as: Option<String>,
        pub rolled_up: bool,
        pub use_rolled: bool,
    }
    no_relations!();
}
