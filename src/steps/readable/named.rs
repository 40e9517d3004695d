//! The contacts and numbers a page of plans names, read in one query per thousand ids, and
//! each step's lines naming only what belongs to the plan's own organisation.
use super::{lines, Names};
use crate::error::AppResult;
use crate::steps::model::{ArgLine, PlanStep};
use serde_json::Value;
use std::collections::HashMap;
use uuid::Uuid;

/// Ids per `IN (…)`: well under SQLite's and PostgreSQL's parameter limits.
const CHUNK: usize = 1_000;

/// The contacts and numbers a page of plans names, each with its organisation, read in one
/// query per thousand ids.
#[derive(Default)]
pub struct Named {
    contacts: HashMap<Uuid, (Uuid, String)>,
    numbers: HashMap<Uuid, (Uuid, String, String)>,
}

impl Named {
    pub async fn read(db: &sea_orm::DatabaseConnection, ids: &[Uuid]) -> AppResult<Self> {
        use crate::contacts::entity::contact;
        use crate::phone_numbers::entity as phone_number;
        use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QuerySelect};
        let mut out = Self::default();
        for part in ids.chunks(CHUNK) {
            let found: Vec<(Uuid, Uuid, String)> = contact::Entity::find()
                .select_only()
                .columns([
                    contact::Column::Id,
                    contact::Column::OrganizationId,
                    contact::Column::Name,
                ])
                .filter(contact::Column::Id.is_in(part.iter().copied()))
                .into_tuple()
                .all(db)
                .await?;
            out.contacts
                .extend(found.into_iter().map(|(id, org, name)| (id, (org, name))));
            let found: Vec<(Uuid, Uuid, String, String)> = phone_number::Entity::find()
                .select_only()
                .columns([
                    phone_number::Column::Id,
                    phone_number::Column::OrganizationId,
                    phone_number::Column::FriendlyName,
                    phone_number::Column::Number,
                ])
                .filter(phone_number::Column::Id.is_in(part.iter().copied()))
                .into_tuple()
                .all(db)
                .await?;
            out.numbers
                .extend(found.into_iter().map(|(id, org, l, n)| (id, (org, l, n))));
        }
        Ok(out)
    }

    /// Step `i`'s lines, naming only what belongs to `org`.
    pub fn lines(
        &self,
        org: Uuid,
        steps: &[PlanStep],
        i: usize,
        known: &HashMap<String, Value>,
    ) -> Vec<ArgLine> {
        let contact = |id| {
            self.contacts
                .get(&id)
                .filter(|(o, _)| *o == org)
                .map(|(_, name)| name.clone())
        };
        let number = |id| {
            self.numbers
                .get(&id)
                .filter(|(o, _, _)| *o == org)
                .map(|(_, l, n)| (l.clone(), n.clone()))
        };
        let intent = |id: &str| steps.iter().find(|s| s.id == id).map(|s| s.intent.clone());
        let names = Names {
            contact: &contact,
            number: &number,
            intent: &intent,
        };
        lines(&steps[i], known, &names)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::steps::readable::tests::{text, DANA, DESK};
    use serde_json::json;

    #[test]
    fn a_plan_names_only_its_own_organisations_contacts_and_numbers() {
        let (ours, theirs) = (Uuid::new_v4(), Uuid::new_v4());
        let named = Named {
            contacts: HashMap::from([(DANA.parse().unwrap(), (theirs, "Dana Reyes".into()))]),
            numbers: HashMap::from([(
                DESK.parse().unwrap(),
                (theirs, "Desk".into(), "+1555".into()),
            )]),
        };
        let step = PlanStep::new(
            "text",
            "Text",
            "send_sms",
            json!({"contact_id": DANA, "phone_number_id": DESK, "body": "Hi"}),
        );
        let steps = [step];
        let lines = named.lines(ours, &steps, 0, &HashMap::new());
        assert_eq!(text(&lines[0]), "a contact not found");
        assert_eq!(
            text(&lines[1]),
            DESK,
            "another organisation's number is not named"
        );
        let lines = named.lines(theirs, &steps, 0, &HashMap::new());
        assert_eq!(text(&lines[0]), "Dana Reyes");
        assert_eq!(text(&lines[1]), "Desk · +1555");
    }
}
