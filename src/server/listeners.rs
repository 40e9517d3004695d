//! Who hears which `DomainEvent` (`docs/architecture.md`, events): the composition root registers
//! every module's listeners here, once, as the server starts.
use crate::platform::events::Listener;
use std::sync::Arc;

/// Every listener, in the order each event reaches them.
pub fn all() -> Vec<Arc<dyn Listener>> {
    vec![
        // A text's status: the contact's reachability, the number's registration, a campaign's
        // delivery alarm.
        Arc::new(crate::contacts::reachability::CarrierUnreachable),
        Arc::new(crate::phone_numbers::registration::RegistrationWatch),
        Arc::new(crate::campaign::delivery_alarm::DeliveryAlarm),
        // A text's picture settled: its conversation shows it.
        Arc::new(crate::messaging::live_updates::MediaShown),
        // A text left: the brand's daily cap.
        Arc::new(crate::sender_profiles::pacing::DailyCount),
        // A campaign's course: the plan that started it, and its thread.
        Arc::new(crate::plans::campaign_outcome::CampaignOutcome),
        // A password reset by link: the person is told in each of their organisations.
        Arc::new(crate::notifications::security::ResetTold),
    ]
}
