//! Tables behind sign-in: organisations, users, memberships, sessions, invitations and
//! password resets.
pub mod organization {
    use sea_orm::entity::prelude::*;

    // A new organisation's settings, as its row is first written (`auth::service`).
    /// Carrier-filtered share (%) past which a campaign pauses, unless its organisation says other
    /// (`campaign::delivery_alarm`).
    pub const FILTERED_PCT_DEFAULT: i32 = 5;
    /// Undelivered share (%) past which a campaign pauses, unless its organisation says other.
    pub const UNDELIVERED_PCT_DEFAULT: i32 = 15;
    /// Business hours, for the response-time reports (`reports::hours`): Monday to Friday (ISO
    /// weekdays), 09:00 to 17:00.
    pub const DAYS_DEFAULT: &str = "12345";
    pub const OPEN_DEFAULT: i32 = 9 * 60;
    pub const CLOSE_DEFAULT: i32 = 17 * 60;
    /// A day: what peers pause their AI for after a person replies (in minutes).
    pub const AI_PAUSE_MINUTES_DEFAULT: i32 = 24 * 60;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "organization")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub id: Uuid,
        pub name: String,
        pub time_zone: String,
        pub created_at: DateTimeUtc,
        /// The organisation's rules: the org-rules tier of every agent's prompt.
        #[sea_orm(column_type = "Text", nullable)]
        pub rules: Option<String>,
        /// The answer to HELP or INFO; None: the default, naming the organisation.
        #[sea_orm(column_type = "Text", nullable)]
        pub help_text: Option<String>,
        /// The one confirmation an opt-out gets; None: the default.
        #[sea_orm(column_type = "Text", nullable)]
        pub opt_out_reply: Option<String>,
        /// Whether an autonomous agent's first reply in a conversation says it is automated.
        pub ai_disclosure: bool,
        #[sea_orm(column_type = "Text", nullable)]
        pub ai_disclosure_text: Option<String>,
        /// The organisation's own extra opt-out words and phrases, one per line.
        #[sea_orm(column_type = "Text", nullable)]
        pub opt_out_phrases: Option<String>,
        /// How long a person's hand-sent text pauses the autonomous agents in that conversation.
        pub ai_pause_minutes: i32,
        /// A campaign pauses itself past this share (%) of carrier-filtered texts (30007)
        /// among its last 100 (migration 49).
        pub pause_filtered_pct: i32,
        /// … or past this share (%) of undelivered ones.
        pub pause_undelivered_pct: i32,
        /// Business hours (migration 52), in which response times count: ISO weekdays
        /// ("12345": Monday to Friday), and the opening and closing minute of the local day.
        pub business_days: String,
        pub business_open: i32,
        pub business_close: i32,
        /// The organisation's API rate-limit cell, shared by all its keys (GCRA, epoch ms).
        pub api_tat_ms: i64,
        /// Domains a member's saved reply may turn into Herald short links, one per line.
        #[sea_orm(column_type = "Text", nullable)]
        pub short_link_domains: Option<String>,
        /// What an agent says when the knowledge does not answer (migration 62); None: Herald's
        /// own words (`knowledge::ground::HOLDING_REPLY`).
        #[sea_orm(column_type = "Text", nullable)]
        pub holding_reply: Option<String>,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

pub mod user {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "user")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub id: Uuid,
        #[sea_orm(unique)]
        pub email: String,
        pub name: String,
        pub password_hash: String,
        pub created_at: DateTimeUtc,
        /// Their notifications are emailed to them too (migration 59; their choice).
        pub email_notifications: bool,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

pub mod membership {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "membership")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub id: Uuid,
        pub user_id: Uuid,
        pub organization_id: Uuid,
        pub role: String,
        pub created_at: DateTimeUtc,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

pub mod session {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "session")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub id: Uuid,
        #[sea_orm(unique)]
        pub token_hash: String,
        pub user_id: Uuid,
        pub organization_id: Uuid,
        pub created_at: DateTimeUtc,
        pub expires_at: DateTimeUtc,
        /// The browser or app that signed in (its User-Agent), for "your sessions".
        #[sea_orm(column_type = "Text", nullable)]
        pub user_agent: Option<String>,
        /// When the session was last used (updated at most once a minute).
        pub last_seen_at: Option<DateTimeUtc>,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

pub mod invitation {
    use sea_orm::entity::prelude::*;

    /// A single-use link that makes its holder a member with `role`; only its hash is stored.
    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "invitation")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub id: Uuid,
        pub organization_id: Uuid,
        pub role: String,
        #[sea_orm(unique)]
        pub token_hash: String,
        pub created_by: Uuid,
        pub created_at: DateTimeUtc,
        pub expires_at: DateTimeUtc,
        pub accepted_at: Option<DateTimeUtc>,
        pub accepted_by: Option<Uuid>,
        pub revoked_at: Option<DateTimeUtc>,
        /// Whom it was for, and where it was emailed (migration 59); none: a link to copy.
        #[sea_orm(column_type = "Text", nullable)]
        pub email: Option<String>,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

pub mod password_reset {
    use sea_orm::entity::prelude::*;

    /// A one-time link to choose a new password; only its hash is stored.
    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "password_reset")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub id: Uuid,
        pub user_id: Uuid,
        #[sea_orm(unique)]
        pub token_hash: String,
        /// The owner who issued it; None: the operator's CLI.
        pub created_by: Option<Uuid>,
        pub created_at: DateTimeUtc,
        pub expires_at: DateTimeUtc,
        pub used_at: Option<DateTimeUtc>,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}
