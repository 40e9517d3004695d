//! The keyed-write ledger: a tool's write and its `tool_effect` row commit together, so the same
//! call re-run (a resumed turn, a plan step after a crash) answers the recorded result instead of
//! writing again. Two runs racing on one key: the second's row collides with the first's, its
//! transaction (writes included) rolls back, and it answers the first's result.
use super::{EffectKey, ToolError};
use crate::platform::db::is_unique_violation;
use crate::platform::AppState;
use sea_orm::{
    ActiveModelTrait, DatabaseTransaction, EntityTrait, Set, SqliteTransactionMode,
    TransactionOptions, TransactionTrait,
};
use serde_json::Value;
use uuid::Uuid;

pub mod tool_effect {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
    #[sea_orm(table_name = "tool_effect")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub id: Uuid,
        pub organization_id: Uuid,
        pub tool: String,
        pub result: Json,
        pub created_at: DateTimeUtc,
    }
    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}
    impl ActiveModelBehavior for ActiveModel {}
}

fn failed(e: sea_orm::DbErr) -> ToolError {
    ToolError::Failed(crate::error::AppError::from(e).to_string())
}

/// Where a keyed write stands: done before (its result), or to do in this transaction.
pub enum Begun {
    Done(Value),
    Fresh(DatabaseTransaction),
}

/// Opens the write's transaction, or answers the result it already recorded.
pub async fn begin(state: &AppState, key: &EffectKey) -> Result<Begun, ToolError> {
    if let Some(row) = recorded(state, key).await? {
        return Ok(Begun::Done(row));
    }
    // On SQLite the transaction takes the write lock as it begins (waiting its turn): a read
    // first, then a write, would fail outright if another write committed in between.
    let immediate = TransactionOptions {
        isolation_level: None,
        access_mode: None,
        sqlite_transaction_mode: Some(SqliteTransactionMode::Immediate),
    };
    Ok(Begun::Fresh(
        state
            .db
            .begin_with_options(immediate)
            .await
            .map_err(failed)?,
    ))
}

async fn recorded(state: &AppState, key: &EffectKey) -> Result<Option<Value>, ToolError> {
    Ok(tool_effect::Entity::find_by_id(key.uuid())
        .one(&state.db)
        .await
        .map_err(failed)?
        .map(|r| r.result))
}

/// Records the result beside the writes and commits both.
pub async fn finish(
    state: &AppState,
    txn: DatabaseTransaction,
    key: &EffectKey,
    organization_id: Uuid,
    tool: &str,
    result: Value,
) -> Result<Value, ToolError> {
    let row = tool_effect::ActiveModel {
        id: Set(key.uuid()),
        organization_id: Set(organization_id),
        tool: Set(tool.to_owned()),
        result: Set(result.clone()),
        created_at: Set(state.clock.now()),
    };
    match row.insert(&txn).await {
        Ok(_) => {
            txn.commit().await.map_err(failed)?;
            Ok(result)
        }
        Err(e) if is_unique_violation(&e) => {
            drop(txn);
            recorded(state, key)
                .await?
                .ok_or_else(|| ToolError::Failed("the effect's record vanished".into()))
        }
        Err(e) => Err(failed(e)),
    }
}
