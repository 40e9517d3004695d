//! Herald's integration tests: every test drives a real server over HTTP, once on SQLite and once on PostgreSQL.
mod helpers;

mod agent_lifecycle;
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
mod plans;
mod twilio_transport;
mod webhook;
