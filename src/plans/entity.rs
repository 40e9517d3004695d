//! The `ai_agent_plan` and `ai_agent_plan_audit` tables.
pub mod plan {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
    #[sea_orm(table_name = "ai_agent_plan")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub id: Uuid,
        pub organization_id: Uuid,
        pub agent_id: Uuid,
        pub thread_id: Option<Uuid>,
        pub title: String,
        #[sea_orm(column_type = "Text")]
        pub summary: String,
        pub action_type: String,
        pub action_payload: Json,
        pub approval_policy: String,
        pub status: crate::plans::model::PlanStatus,
        pub decision: Option<String>,
        #[sea_orm(column_type = "Text", nullable)]
        pub decision_reason: Option<String>,
        pub created_by: Option<Uuid>,
        pub approved_by: Option<Uuid>,
        pub approved_at: Option<DateTimeUtc>,
        pub executed_ref: Option<Uuid>,
        #[sea_orm(column_type = "Text", nullable)]
        pub error: Option<String>,
        pub created_at: DateTimeUtc,
        pub updated_at: DateTimeUtc,
        /// Unique when set: the turn's (thread, tool call) that presented it.
        pub source_key: Option<String>,
        /// The worker executing it, and until when.
        pub lease_owner: Option<String>,
        pub lease_expires_at: Option<DateTimeUtc>,
        /// The plan this one revises (a re-plan), unique: one revision per plan.
        pub revision_of: Option<Uuid>,
        /// Its number in its line of revisions; the first plan is 1.
        pub revision: i32,
        /// The request it answers, in the requester's words (the thread's last message then).
        #[sea_orm(column_type = "Text", nullable)]
        pub request: Option<String>,
        /// Set while a step plan waits on a person (migration 45): the sweeper leaves it, and a
        /// decision wakes it.
        pub paused_at: Option<DateTimeUtc>,
        /// The steps it waits on while paused.
        pub waiting_steps: i32,
        /// The policy its steps run under (migration 46): the one chosen for the plan, before
        /// "a plan that texts is reviewed" raised `approval_policy`. None on older plans.
        pub step_policy: Option<String>,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}
    impl ActiveModelBehavior for ActiveModel {}
}

pub mod audit {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
    #[sea_orm(table_name = "ai_agent_plan_audit")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub id: Uuid,
        pub plan_id: Uuid,
        pub kind: String,
        pub actor: String,
        pub actor_user_id: Option<Uuid>,
        pub policy: Option<String>,
        pub decision: Option<String>,
        #[sea_orm(column_type = "Text", nullable)]
        pub reason: Option<String>,
        pub before: Option<Json>,
        pub after: Option<Json>,
        pub created_at: DateTimeUtc,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}
    impl ActiveModelBehavior for ActiveModel {}
}
