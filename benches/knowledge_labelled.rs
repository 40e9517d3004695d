//! The labelled questions for the demo clinic's knowledge (issue 52 §2): each answerable question
//! with the title of the fact, FAQ entry or document that answers it (many worded unlike their source), and
//! questions the knowledge does not answer. Read by `knowledge_bench` (recall@3, and how often an
//! unanswerable question scores at or above the answer threshold) and by the integration test
//! that holds the same goals.

/// (question, the title of the source that answers it).
pub const ANSWERABLE: &[(&str, &str)] = &[
    (
        "How much is whitening?",
        "How much does teeth whitening cost?",
    ),
    (
        "what do you charge for teeth whitening",
        "How much does teeth whitening cost?",
    ),
    ("Whitening price?", "How much does teeth whitening cost?"),
    (
        "is bleaching my teeth expensive",
        "How much does teeth whitening cost?",
    ),
    (
        "how much are the take-home whitening trays",
        "How much does teeth whitening cost?",
    ),
    ("What's the cost of a cleaning?", "How much is a cleaning?"),
    ("how much for a checkup", "How much is a cleaning?"),
    (
        "price of a dental cleaning without insurance",
        "How much is a cleaning?",
    ),
    (
        "what's the fee for a teeth cleaning",
        "How much is a cleaning?",
    ),
    ("Do you accept Cigna?", "Do you take insurance?"),
    ("is Delta Dental accepted", "Do you take insurance?"),
    ("Do you take my insurance", "Do you take insurance?"),
    ("which insurers do you work with", "Do you take insurance?"),
    (
        "do you file the insurance claim for me",
        "Do you take insurance?",
    ),
    ("Can I bring my kids?", "Do you see children?"),
    ("do you see kids", "Do you see children?"),
    ("is there a pediatric dentist", "Do you see children?"),
    ("is my toddler's first visit free", "Do you see children?"),
    (
        "I have a toothache, can you see me today?",
        "Do you handle emergencies?",
    ),
    (
        "dental emergency, what do I do",
        "Do you handle emergencies?",
    ),
    (
        "my tooth hurts really bad, urgent",
        "Do you handle emergencies?",
    ),
    (
        "can I get a same-day appointment for pain",
        "Do you handle emergencies?",
    ),
    ("How do I book?", "How do I book an appointment?"),
    (
        "can I schedule a visit online",
        "How do I book an appointment?",
    ),
    (
        "I'd like to make an appointment",
        "How do I book an appointment?",
    ),
    ("how can I reserve a slot", "How do I book an appointment?"),
    (
        "What is your cancellation policy?",
        "What is your cancellation policy?",
    ),
    (
        "is there a charge if I cancel late",
        "What is your cancellation policy?",
    ),
    (
        "how much notice do you need to cancel",
        "What is your cancellation policy?",
    ),
    (
        "can I reschedule my visit",
        "What is your cancellation policy?",
    ),
    ("Do you offer payment plans?", "Do you offer payment plans?"),
    ("can I pay in installments", "Do you offer payment plans?"),
    (
        "is there financing with no interest",
        "Do you offer payment plans?",
    ),
    (
        "can I spread the payments over a few months",
        "Do you offer payment plans?",
    ),
    ("How much is a crown?", "How much is a crown?"),
    ("what does a porcelain crown cost", "How much is a crown?"),
    ("crown price", "How much is a crown?"),
    ("Do you do Invisalign?", "Do you do Invisalign?"),
    ("do you offer clear aligners", "Do you do Invisalign?"),
    ("how much is invisalign", "Do you do Invisalign?"),
    ("do you do braces", "Do you do Invisalign?"),
    (
        "How much is the first visit for a new patient?",
        "Is there a fee for new patients?",
    ),
    ("new patient exam price", "Is there a fee for new patients?"),
    (
        "do you charge for x-rays at the first visit",
        "Is there a fee for new patients?",
    ),
    ("Do you speak Spanish?", "Which languages do you speak?"),
    ("habla español", "Which languages do you speak?"),
    (
        "does anyone speak Mandarin",
        "Which languages do you speak?",
    ),
    ("what are your hours on weekdays", "Weekday hours"),
    ("are you open on Monday?", "Weekday hours"),
    ("what time do you close on Friday", "Weekday hours"),
    ("Are you open Saturday?", "Saturday hours"),
    ("saturday opening times", "Saturday hours"),
    ("can I come in on Saturday morning", "Saturday hours"),
    ("Are you open on Sunday?", "Sunday hours"),
    ("sunday hours?", "Sunday hours"),
    ("Where are you located?", "Address"),
    ("what's your address", "Address"),
    ("how do I find the clinic, directions please", "Address"),
    ("what's your phone number", "Phone"),
    ("can I call you", "Phone"),
    ("Where can I park?", "Parking"),
    ("is parking free", "Parking"),
    ("Is there a link to book online?", "Booking link"),
    // The new patient guide (a document, split into passages).
    (
        "What should I bring to my first appointment?",
        "New patient guide.md",
    ),
    ("how long will my first visit take", "New patient guide.md"),
    (
        "my teeth feel sensitive after whitening, is that normal?",
        "New patient guide.md",
    ),
    ("can I drink coffee after whitening", "New patient guide.md"),
    (
        "I'm really nervous about the dentist",
        "New patient guide.md",
    ),
    ("where is the health form", "New patient guide.md"),
];

/// Questions the demo clinic's knowledge does not answer.
pub const UNANSWERABLE: &[&str] = &[
    "Do you do hair transplants?",
    "How much is a hair transplant?",
    "Do you sell gift cards?",
    "What's the wifi password?",
    "Do you offer Botox?",
    "Is Dr. Patel still working there?",
    "Can you recommend a good orthopedic surgeon?",
    "Do you treat dogs?",
    "How much is a root canal?",
    "Do you do dental implants?",
    "Is the clinic wheelchair accessible?",
    "Are you hiring hygienists?",
    "What's your refund policy for products?",
    "Do you have a loyalty program?",
    "How much is laser eye surgery?",
];
