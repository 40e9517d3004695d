//! The pages of Herald, one module each. The pages a person opens seldom are left out of the
//! web client's first load (feature `first-load`; see `full_client`).
mod auth;
mod contacts;
mod conversation;
mod full_client;
mod inbox;
mod message_search;
mod segment_bar;
pub(crate) mod shell;

pub use auth::SignIn;
pub use contacts::Contacts;
pub use conversation::Conversation;
pub use inbox::{Home, Inbox};
pub use shell::Shell;

// The pages only the full client carries. The first-load client has, for each, a page of the same
// name and props that loads it from the server, which answers it with the full client.
full_client::seldom_opened! {
    account: Account {};
    assistant: Assistant {};
    agent_thread: AgentThread { thread_id: uuid::Uuid };
    agents: Agents {}, AgentDetail { agent_id: uuid::Uuid };
    contact: ContactPage { contact_id: uuid::Uuid };
    contact_import: ContactImport {};
    join: Join { token: String }, Reset { token: String };
    knowledge: Knowledge {};
    notifications: Notifications {};
    new_campaign: NewCampaign { audience: String };
    numbers: PhoneNumbers {};
    operations: Operations {}, OperationReview { operation_id: uuid::Uuid };
    plans: Plans {}, PlanDetail { plan_id: uuid::Uuid };
    settings: Settings {};
    sign_up: SignUp {};
    simulator: Simulator {};
    team: Team {};
}
#[cfg(not(feature = "first-load"))]
mod agent_sources;
#[cfg(not(feature = "first-load"))]
mod contact_import_map;
#[cfg(not(feature = "first-load"))]
mod knowledge_files;
#[cfg(not(feature = "first-load"))]
pub(crate) mod provider;
#[cfg(not(feature = "first-load"))]
mod saved_replies;
#[cfg(not(feature = "first-load"))]
mod suggesters;
