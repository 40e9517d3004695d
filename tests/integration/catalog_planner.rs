//! Step plans written by a hosted model from the step catalog alone (issue 29 §1). The model
//! here is a schema-following fake behind the loopback OpenAI and Anthropic servers: it knows no
//! tool by name. It asks for the catalog with the tool whose description offers it, picks each
//! step's tool by its description and its arguments' names, and fills the arguments from their
//! schemas. Three plans go through it on each provider: presented, validated, approved,
//! confirmed and run. The first time, it writes one argument as the wrong type, reads the
//! validation error and fixes it from the schema in the same turn. Without the catalog in its
//! view it cannot write a plan at all, which the last test checks.
use crate::campaign_support::*;
use crate::fake_llm::{self, Dialect, Seen, Step};
use crate::helpers::*;
use crate::on_both_databases;
use crate::step_plan_support::{decide, get, hash_of, status_of, until};
use serde_json::{json, Map, Value};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// What a step is meant to do, as a model understands a request: words to find its tool by, and
/// values for the arguments whose names it recognises.
#[derive(Clone)]
struct Act {
    intent: &'static str,
    words: &'static [&'static str],
    values: Vec<(&'static str, Value)>,
}

/// A request: the contacts to find, then what to do with them.
#[derive(Clone)]
struct Goal {
    request: &'static str,
    find: Act,
    then: Vec<Act>,
}

fn goals() -> Vec<Goal> {
    let find = |values: Vec<(&'static str, Value)>| Act {
        intent: "Find the quote leads",
        words: &["find", "contacts"],
        values,
    };
    vec![
        Goal {
            request: "Tag our quote leads follow-up, and note on each that we will call back",
            find: find(vec![("tag", json!("quote"))]),
            then: vec![
                Act {
                    intent: "Tag them follow-up",
                    words: &["tag"],
                    values: vec![("add", json!("follow-up"))],
                },
                Act {
                    intent: "Note the call back on each",
                    words: &["note"],
                    values: vec![("note", json!("We will call back about the quote."))],
                },
            ],
        },
        Goal {
            request: "Text each quote lead who has not opted out a check-in",
            find: find(vec![("tag", json!("quote")), ("opted_out", json!(false))]),
            then: vec![Act {
                intent: "Text each a check-in",
                words: &["send", "text"],
                values: vec![("body", json!("Hi, just checking in about your quote."))],
            }],
        },
        Goal {
            request: "Set the stage field to lead on every quote lead",
            find: find(vec![("tag", json!("quote"))]),
            then: vec![Act {
                intent: "Mark each as a lead",
                words: &["custom", "field"],
                values: vec![("field", json!("stage")), ("value", json!("lead"))],
            }],
        },
    ]
}

/// The fake model's mind: the goals it was asked, and whether it has made its one mistake.
struct CatalogPlanner {
    goals: Vec<Goal>,
    mistaken: Mutex<bool>,
}

impl CatalogPlanner {
    fn answer(&self, seen: &Seen) -> Step {
        // The newest request this model plans for. Herald's notes about earlier plans come
        // before it, and quote those plans' titles.
        let Some(goal) = seen.user_texts().iter().rev().find_map(|asked| {
            self.goals
                .iter()
                .filter_map(|g| asked.rfind(g.request).map(|at| (at, g)))
                .max_by_key(|(at, _)| *at)
                .map(|(_, g)| g)
        }) else {
            return Step::text("(nothing asked that this model plans)");
        };
        // This turn's newest tool result (earlier turns' are history).
        let last_result = seen
            .messages
            .iter()
            .rev()
            .take_while(|(r, _)| r != "user")
            .find(|(r, _)| r == "tool")
            .map(|(_, c)| c.clone())
            .unwrap_or_default();
        if last_result.contains("plan_id") {
            return Step::text("The plan is ready for your review.");
        }
        let Some(catalog) = seen.results().into_iter().rev().find(is_catalog) else {
            // Ask for the catalog with whichever offered tool says it lists a step's tools.
            return match seen
                .tool_defs
                .iter()
                .find(|(_, d)| d.contains("tools a step"))
            {
                Some((name, _)) => Step::call(name, json!({})),
                None => Step::text(CANNOT_PLAN),
            };
        };
        let Some((present, _)) = seen
            .tool_defs
            .iter()
            .find(|(_, d)| d.contains("plan for approval"))
        else {
            return Step::text("(no way to present a plan)");
        };
        // The first plan this model writes takes the values as it heard them; after a
        // validation error, and ever after, it holds each value to its schema's type.
        let careful = {
            let mut mistaken = self.mistaken.lock().unwrap();
            let careful = *mistaken || last_result.contains("problems");
            *mistaken = true;
            careful
        };
        match plan_from(&catalog, goal, careful) {
            Some(plan) => Step::call(present, plan),
            None => Step::text(CANNOT_PLAN),
        }
    }
}

const CANNOT_PLAN: &str = "I cannot see which tools a step may call, so I cannot write this plan.";

fn is_catalog(v: &Value) -> bool {
    v["tools"]
        .as_array()
        .is_some_and(|t| !t.is_empty() && t.iter().all(|t| t["arguments"].is_object()))
}

/// The catalog's tool that best fits `act`: its description's words, and twice over the
/// arguments it takes that `act` has values for.
fn pick<'a>(catalog: &'a Value, mutates: bool, act: &Act) -> Option<&'a Value> {
    let score = |t: &Value| {
        let description = t["description"].as_str().unwrap_or_default().to_lowercase();
        let words = act
            .words
            .iter()
            .filter(|w| description.contains(*w))
            .count();
        let names = act
            .values
            .iter()
            .filter(|(name, _)| t["arguments"]["properties"].get(*name).is_some())
            .count();
        words + 2 * names
    };
    catalog["tools"]
        .as_array()?
        .iter()
        .filter(|t| t["mutates"] == mutates)
        .filter(|t| score(t) > 0)
        .fold(None, |best: Option<&Value>, t| match best {
            Some(b) if score(b) >= score(t) => Some(b),
            _ => Some(t),
        })
}

/// A value held to its schema's type: one word where a list is asked for becomes a list of one.
fn coerce(value: &Value, schema: &Value) -> Value {
    match (schema["type"].as_str(), value) {
        (Some("array"), Value::String(_)) => json!([value]),
        _ => value.clone(),
    }
}

/// The arguments of `tool` for `act`, and whether the step runs once per found contact. A
/// property about contacts takes the list the find step answers (when it is a list) or each of
/// its items' ids (when it is one contact).
fn arguments(tool: &Value, act: &Act, found: Option<&str>, careful: bool) -> (Value, bool) {
    let mut args = Map::new();
    let mut each = false;
    let empty = Map::new();
    let props = tool["arguments"]["properties"]
        .as_object()
        .unwrap_or(&empty);
    for (name, schema) in props {
        if let Some((_, v)) = act.values.iter().find(|(n, _)| n == name) {
            let v = if careful {
                coerce(v, schema)
            } else {
                v.clone()
            };
            args.insert(name.clone(), v);
        } else if let (Some(list), true) = (found, name.contains("contact")) {
            match schema["type"].as_str() {
                Some("array") => {
                    args.insert(name.clone(), json!(format!("{{{{find.result.{list}}}}}")));
                }
                Some("string") => {
                    args.insert(name.clone(), json!("{{item.id}}"));
                    each = true;
                }
                _ => {}
            }
        }
    }
    (Value::Object(args), each)
}

/// The plan's title: its writes' intents. Not the request's words: Herald's notes about a plan
/// quote its title, and this model reads the newest request from the texts it is given.
fn title_of(goal: &Goal) -> String {
    let intents: Vec<&str> = goal.then.iter().map(|a| a.intent).collect();
    intents.join(", then ")
}

/// The whole `present_plan` call for `goal`, from the catalog alone.
fn plan_from(catalog: &Value, goal: &Goal, careful: bool) -> Option<Value> {
    let find = pick(catalog, false, &goal.find)?;
    // The find tool's answer: its first list property is where the contacts are.
    let list = find["result"]["properties"]
        .as_object()?
        .iter()
        .find(|(_, s)| s["type"] == "array")
        .map(|(name, _)| name.clone())?;
    let (find_args, _) = arguments(find, &goal.find, None, careful);
    let mut steps = vec![json!({"id": "find", "intent": goal.find.intent,
        "tool": find["name"], "arguments": find_args})];
    for (i, act) in goal.then.iter().enumerate() {
        let tool = pick(catalog, true, act)?;
        let (args, each) = arguments(tool, act, Some(&list), careful);
        let mut step = json!({"id": format!("do_{i}"), "intent": act.intent,
            "tool": tool["name"], "arguments": args});
        if each {
            step["for_each"] = json!(format!("{{{{find.result.{list}}}}}"));
        }
        steps.push(step);
    }
    Some(json!({"title": title_of(goal), "summary": "As you asked.",
        "action": {"type": "steps", "steps": steps}}))
}

/// Approves the newest plan, confirms each write as it comes to wait, and waits for the end.
async fn approve_and_run(app: &TestApp, org: &Org, plan: &Value) -> Value {
    let id: uuid::Uuid = plan["id"].as_str().unwrap().parse().unwrap();
    let _: Value = app
        .ok_as(&org.client, "/api/plans/approve", json!({"id": id}))
        .await;
    for _ in 0..10 {
        let p = until(app, org, id, |p| {
            let steps = p["action"]["steps"].as_array().unwrap();
            steps.iter().any(|s| s["status"] == "awaiting_confirmation")
                || steps.iter().all(|s| s["status"] == "completed")
        })
        .await;
        let waiting: Vec<String> = p["action"]["steps"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|s| s["status"] == "awaiting_confirmation")
            .map(|s| s["id"].as_str().unwrap().to_owned())
            .collect();
        if waiting.is_empty() {
            return p;
        }
        for step in waiting {
            let (status, body) = decide(
                app,
                org,
                id,
                json!({"kind": "confirm", "step": step, "arguments_hash": hash_of(&p, &step)}),
            )
            .await;
            assert_eq!(status, 200, "{body}");
        }
        until(app, org, id, |p| {
            p["action"]["steps"]
                .as_array()
                .unwrap()
                .iter()
                .all(|s| s["status"] != "awaiting_confirmation")
        })
        .await;
    }
    panic!("the plan kept waiting: {}", get(app, org, id).await);
}

async fn contact(app: &TestApp, org: &Org, id: uuid::Uuid) -> Value {
    app.ok_as(&org.client, "/api/contacts/get", json!({"id": id}))
        .await
}

async fn hosted_model_writes_step_plans_from_the_catalog(backend: Backend, dialect: Dialect) {
    let llm = fake_llm::start(dialect).await;
    let planner = Arc::new(CatalogPlanner {
        goals: goals(),
        mistaken: Mutex::new(false),
    });
    let mind = planner.clone();
    llm.otherwise(Box::new(move |seen| mind.answer(seen)));
    let Some((app, outbox)) = fake_llm::spawn_with(backend, &llm, Duration::from_secs(10)).await
    else {
        return;
    };
    let c = crm(&app).await;
    let leads = [c.katherine, c.linus, c.boris];

    for (n, goal) in goals().iter().enumerate() {
        let before = llm.request_count();
        ask(&app, &c.org, goal.request).await;
        assert!(
            llm.refused.lock().unwrap().is_empty(),
            "{:?}",
            llm.refused.lock().unwrap()
        );
        let plan = first_plan(&app, &c.org).await;
        assert_eq!(plan["title"], title_of(goal), "plan {n} was presented");
        assert_eq!(plan["status"], "awaiting_approval", "{plan}");
        assert_eq!(plan["action"]["type"], "steps");
        if n == 0 {
            // The catalog, a plan with `add` as one word, its validation error, the fixed plan.
            let requests = llm.requests.lock().unwrap()[before..].to_vec();
            assert_eq!(requests.len(), 3, "catalog, wrong plan, fixed plan");
            let told = requests[2].to_string();
            assert!(told.contains("problems"), "the error went back: {told}");
            assert_eq!(
                plan["action"]["steps"][1]["arguments"]["add"],
                json!(["follow-up"])
            );
        }
        let done = approve_and_run(&app, &c.org, &plan).await;
        for step in done["action"]["steps"].as_array().unwrap() {
            assert_eq!(status_of(&done, step["id"].as_str().unwrap()), "completed");
        }
    }

    // What the three plans did: tags and notes on every quote lead, a text to each lead who
    // has not opted out, and the field set on every one.
    for id in leads {
        let k = contact(&app, &c.org, id).await;
        assert!(
            k["tags"].as_array().unwrap().contains(&json!("follow-up")),
            "{k}"
        );
        assert!(
            k.to_string().contains("We will call back about the quote."),
            "{k}"
        );
        assert!(k.to_string().contains("\"stage\""), "{k}");
    }
    let texts: Vec<String> = outbox.sent().iter().map(|s| s.to.to_string()).collect();
    assert_eq!(texts.len(), 3, "Alan, Katherine and Linus: {texts:?}");
    assert!(
        !texts.contains(&"+14155552675".to_owned()),
        "Boris opted out"
    );
    assert!(outbox
        .sent()
        .iter()
        .all(|s| s.body.contains("just checking in about your quote")));
}

/// The same model with the catalog taken out of its view writes no plan.
#[test]
fn without_the_catalog_the_model_cannot_plan() {
    let planner = CatalogPlanner {
        goals: goals(),
        mistaken: Mutex::new(true),
    };
    let seen = Seen {
        tool_defs: vec![
            ("find_contacts".into(), "Find contacts by tag.".into()),
            (
                "present_plan".into(),
                "Submit your plan for approval.".into(),
            ),
        ],
        messages: vec![("user".into(), goals()[0].request.into())],
        ..Default::default()
    };
    match planner.answer(&seen) {
        Step::Text(t) => assert_eq!(t, CANNOT_PLAN),
        _ => panic!("it planned without the catalog"),
    }
    // With the catalog it plans.
    let catalog = herald::tools::step_catalog_view();
    let plan = plan_from(&catalog, &goals()[1], true).unwrap();
    let steps = plan["action"]["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 2);
    assert_eq!(steps[1]["for_each"], "{{find.result.contacts}}");
}

async fn through_openai(backend: Backend) {
    hosted_model_writes_step_plans_from_the_catalog(backend, Dialect::OpenAi).await
}
async fn through_anthropic(backend: Backend) {
    hosted_model_writes_step_plans_from_the_catalog(backend, Dialect::Anthropic).await
}

on_both_databases!(through_openai, through_anthropic);
