//! The demo clinic's knowledge (issue 52 §3): the facts, FAQ entries and one document (its new
//! patient guide) Bright Smile Dental starts with, so the first run answers "how much is
//! whitening?" from the business's own words.
use crate::auth::session::Member;
use crate::error::AppResult;
use crate::knowledge::model::{FactInput, FaqInput};
use crate::knowledge::service;
use crate::platform::AppState;

/// Facts: a label and its value.
pub const FACTS: &[(&str, &str)] = &[
    ("Weekday hours", "Monday to Friday, 8am to 6pm"),
    ("Saturday hours", "Saturday, 9am to 1pm"),
    ("Sunday hours", "Closed on Sundays"),
    (
        "Address",
        "12 Harbour Street, Springfield, near the library",
    ),
    ("Phone", "(415) 555-0100"),
    ("Booking link", "https://brightsmile.example/book"),
    (
        "Parking",
        "Free parking behind the building; enter from Elm Lane",
    ),
];

/// FAQ entries: a question, its answer, and other ways of asking.
pub const FAQS: &[(&str, &str, &[&str])] = &[
    ("How much does teeth whitening cost?", "In-office whitening is $350 and take-home trays are $180.", &["What is the price of whitening?"]),
    ("How much is a cleaning?", "A cleaning and check-up is $120 without insurance.", &["What does a check-up cost?"]),
    ("Do you take insurance?", "We accept Delta Dental, Cigna, Aetna and MetLife, and we file the claim for you.", &["Is my insurance accepted?"]),
    ("Do you see children?", "Yes, we see children from age 2; a child's first visit is free.", &["Can I bring my kids?"]),
    ("Do you handle emergencies?", "Call us at (415) 555-0100: we keep same-day slots for dental emergencies and pain.", &["I have a toothache, can you see me today?"]),
    ("How do I book an appointment?", "Book online at https://brightsmile.example/book or reply with a day and time that suits you.", &["Can I make an appointment?"]),
    ("What is your cancellation policy?", "Please give us 24 hours' notice to cancel or move a visit; late cancellations are charged $40.", &["Can I reschedule my visit?"]),
    ("Do you offer payment plans?", "Yes: treatments over $500 can be paid over 6 months with no interest.", &["Can I pay in installments?"]),
    ("How much is a crown?", "A porcelain crown is $1,100, including the temporary crown.", &[]),
    ("Do you do Invisalign?", "Yes, Invisalign clear aligners start at $3,900 after a free consultation.", &["Do you offer clear aligners or braces?"]),
    ("Is there a fee for new patients?", "A new patient exam with X-rays is $95.", &["What does a first visit cost?"]),
    ("Which languages do you speak?", "Our team speaks English, Spanish and Mandarin.", &["Do you speak Spanish?"]),
];

/// The demo clinic's document: its guide for new patients, in Markdown.
pub const GUIDE_NAME: &str = "New patient guide.md";
pub const GUIDE: &str = "# New patient guide

## Before your first visit

Fill in the health form at https://brightsmile.example/forms before you come, or arrive 15 \
minutes early to fill it in at the front desk. Bring a photo ID, your insurance card and a list of \
the medicines you take.

## Your first visit

A first visit takes about an hour: an exam, X-rays, and a cleaning if there is time. The dentist \
explains what she finds and gives you a written plan, with the cost of each step, before any \
treatment starts.

## After whitening

Teeth can feel sensitive for a day or two after whitening. Avoid coffee, tea and red wine for 48 \
hours, and brush with a toothpaste for sensitive teeth.

## Nervous patients

Tell us if you feel nervous. We explain each step before we do it, agree on a hand signal to \
pause, and offer headphones with music.
";

/// Adds the demo clinic's facts, FAQ entries and guide, as its owner; the guide is read before
/// this answers, so the first question finds it.
pub async fn seed(state: &AppState, owner: &Member) -> AppResult<()> {
    for (label, value) in FACTS {
        let input = FactInput {
            label: (*label).into(),
            value: (*value).into(),
        };
        service::save_fact(state, owner, None, &input).await?;
    }
    for (question, answer, alternatives) in FAQS {
        let input = FaqInput {
            question: (*question).into(),
            answer: (*answer).into(),
            alternatives: alternatives.iter().map(|a| (*a).to_owned()).collect(),
        };
        service::save_faq(state, owner, None, &input).await?;
    }
    let guide = crate::knowledge::documents::store_document(
        state,
        owner,
        GUIDE_NAME,
        "text/markdown",
        GUIDE.as_bytes().to_vec(),
    )
    .await?;
    crate::knowledge::read::read_now(state, guide.id).await;
    Ok(())
}
