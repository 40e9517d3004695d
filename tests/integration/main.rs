//! Herald's integration tests: every test drives a real server over HTTP, once on SQLite and once on PostgreSQL.
mod helpers;

mod agent_lifecycle;
mod agent_safety;
mod agent_support;
mod agents;
mod auth;
mod campaign_engine;
mod campaign_support;
mod campaigns;
mod contacts;
mod crash;
mod cross_org;
mod messaging;
mod migrations;
mod openai_provider;
mod ops;
mod plan_safety;
mod plan_support;
mod plans;
mod twilio_transport;
mod webhook;
