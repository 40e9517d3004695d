//! Server functions behind the phone numbers page; adding and editing is for owners.
use crate::error::AppError;
use crate::phone_numbers::model::{NumberProvider, PhoneNumberInput, PhoneNumberView};
use dioxus::prelude::*;
use uuid::Uuid;

server_fn! {
    #[get("/api/numbers")]
    pub async fn list_phone_numbers() -> Result<Vec<PhoneNumberView>, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        let rows = crate::phone_numbers::service::list(&state, m.organization_id).await?;
        Ok(rows
            .into_iter()
            .map(crate::phone_numbers::service::to_view)
            .collect())
    }
}

server_fn! {
    #[post("/api/numbers/create")]
    pub async fn create_phone_number(input: PhoneNumberInput) -> Result<PhoneNumberView, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        m.require_owner()?;
        crate::phone_numbers::service::create(&state, m.organization_id, &input).await
    }
}

server_fn! {
    #[post("/api/numbers/update")]
    pub async fn update_phone_number(
        id: Uuid,
        input: PhoneNumberInput,
    ) -> Result<PhoneNumberView, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        m.require_owner()?;
        crate::phone_numbers::service::update(&state, m.organization_id, id, &input).await
    }
}

server_fn! {
    #[get("/api/numbers/provider")]
    pub async fn number_provider() -> Result<NumberProvider, AppError> {
        let (state, _) = crate::auth::session::require_member().await?;
        let name = state.transport.name();
        Ok(NumberProvider {
            name: name.to_owned(),
            checks_ownership: name != "outbox",
        })
    }
}
