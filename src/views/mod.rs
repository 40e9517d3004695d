//! The pages of Herald, one module each.
mod agent_thread;
mod agents;
mod assistant;
mod auth;
mod contacts;
mod conversation;
mod inbox;
mod notifications;
mod numbers;
mod plans;
mod shell;
mod simulator;
mod team;

pub use agent_thread::AgentThread;
pub use agents::{AgentDetail, Agents};
pub use assistant::Assistant;
pub use auth::{SignIn, SignUp};
pub use contacts::Contacts;
pub use conversation::Conversation;
pub use inbox::{Home, Inbox};
pub use notifications::Notifications;
pub use numbers::PhoneNumbers;
pub use plans::Plans;
pub use shell::{LiveTick, Shell};
pub use simulator::Simulator;
pub use team::Team;
