//! The plan as a graph: each step's dependencies (the steps its arguments refer to), a
//! topological order in layers (what can run together), and who depends on whom.
use super::model::PlanStep;
use super::reference::{references_in, RefError, Reference};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

#[derive(thiserror::Error, Debug, Clone, PartialEq)]
pub enum GraphError {
    #[error("step `{0}` appears more than once")]
    DuplicateId(String),
    #[error("a step has no id")]
    EmptyId,
    #[error("step `{step}`: {error}")]
    BadReference { step: String, error: RefError },
    #[error("step `{step}` refers to `{missing}`, which is not a step of this plan")]
    MissingStep { step: String, missing: String },
    #[error("step `{0}` refers to its own result")]
    SelfReference(String),
    #[error("the steps {0:?} refer to each other in a cycle")]
    Cycle(Vec<String>),
}

/// Every reference a step makes: in its arguments, its `for_each` list (at `for_each`) and its
/// `when` (at `when`; a malformed `when` is the validator's to name).
pub fn step_references(s: &PlanStep) -> Result<Vec<(String, Reference)>, RefError> {
    let mut refs = references_in(&s.arguments)?;
    if let Some(Ok(c)) = s.when.as_deref().map(super::condition::parse) {
        refs.push(("when".to_owned(), c.reference));
    }
    if let Some(Value::String(source)) = &s.for_each {
        refs.extend(
            references_in(&Value::String(source.clone()))?
                .into_iter()
                .map(|(_, r)| ("for_each".to_owned(), r)),
        );
    }
    Ok(refs)
}

/// The steps' dependencies, by index: `deps[i]` are the steps step `i` reads from.
#[derive(Clone, Debug, PartialEq)]
pub struct Graph {
    pub deps: Vec<BTreeSet<usize>>,
    pub dependents: Vec<BTreeSet<usize>>,
    /// Steps in layers: every step's dependencies sit in earlier layers.
    pub layers: Vec<Vec<usize>>,
}

impl Graph {
    /// Builds the graph, or every problem found with it.
    pub fn of(steps: &[PlanStep]) -> Result<Graph, Vec<GraphError>> {
        let mut errors = Vec::new();
        let mut index: BTreeMap<&str, usize> = BTreeMap::new();
        for (i, s) in steps.iter().enumerate() {
            if s.id.trim().is_empty() {
                errors.push(GraphError::EmptyId);
            } else if index.insert(s.id.as_str(), i).is_some() {
                errors.push(GraphError::DuplicateId(s.id.clone()));
            }
        }
        let mut deps = vec![BTreeSet::new(); steps.len()];
        for (i, s) in steps.iter().enumerate() {
            let refs = match step_references(s) {
                Ok(refs) => refs,
                Err(error) => {
                    errors.push(GraphError::BadReference {
                        step: s.id.clone(),
                        error,
                    });
                    continue;
                }
            };
            for (_, r) in refs.into_iter().filter(|(_, r)| !r.is_item()) {
                match index.get(r.step.as_str()) {
                    Some(&j) if j == i => errors.push(GraphError::SelfReference(s.id.clone())),
                    Some(&j) => {
                        deps[i].insert(j);
                    }
                    None => errors.push(GraphError::MissingStep {
                        step: s.id.clone(),
                        missing: r.step.clone(),
                    }),
                }
            }
        }
        let mut dependents = vec![BTreeSet::new(); steps.len()];
        for (i, d) in deps.iter().enumerate() {
            for &j in d {
                dependents[j].insert(i);
            }
        }
        // Kahn's algorithm, a layer at a time.
        let mut waiting: Vec<usize> = deps.iter().map(|d| d.len()).collect();
        let mut layer: Vec<usize> = (0..steps.len()).filter(|&i| waiting[i] == 0).collect();
        let mut layers = Vec::new();
        let mut placed = 0;
        while !layer.is_empty() {
            placed += layer.len();
            let mut next = Vec::new();
            for &i in &layer {
                for &k in &dependents[i] {
                    waiting[k] -= 1;
                    if waiting[k] == 0 {
                        next.push(k);
                    }
                }
            }
            next.sort_unstable();
            layers.push(std::mem::replace(&mut layer, next));
        }
        if placed < steps.len() {
            let stuck = (0..steps.len())
                .filter(|&i| waiting[i] > 0)
                .map(|i| steps[i].id.clone())
                .collect();
            errors.push(GraphError::Cycle(stuck));
        }
        if errors.is_empty() {
            Ok(Graph {
                deps,
                dependents,
                layers,
            })
        } else {
            Err(errors)
        }
    }

    /// Every step downstream of `i` (its dependents, theirs, and so on).
    pub fn downstream(&self, i: usize) -> BTreeSet<usize> {
        let mut seen = BTreeSet::new();
        let mut stack: Vec<usize> = self.dependents[i].iter().copied().collect();
        while let Some(k) = stack.pop() {
            if seen.insert(k) {
                stack.extend(self.dependents[k].iter().copied());
            }
        }
        seen
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn step(id: &str, args: serde_json::Value) -> PlanStep {
        PlanStep::new(id, id, "noop", args)
    }

    #[test]
    fn a_fan_out_sits_in_three_layers() {
        let steps = vec![
            step("find", json!({})),
            step("tag", json!({"ids": "{{find.result.ids}}"})),
            step("text", json!({"to": "{{find.result.ids[0]}}"})),
            step(
                "report",
                json!({"a": "{{tag.result}}", "b": "{{text.result.sid}}"}),
            ),
            step("alone", json!({"x": 1})),
        ];
        let g = Graph::of(&steps).unwrap();
        assert_eq!(g.layers, vec![vec![0, 4], vec![1, 2], vec![3]]);
        assert_eq!(g.downstream(0), BTreeSet::from([1, 2, 3]));
        assert_eq!(g.downstream(4), BTreeSet::new());
    }

    #[test]
    fn cycles_missing_steps_and_duplicates_are_named() {
        let steps = vec![
            step("a", json!({"x": "{{c.result}}"})),
            step("b", json!({"x": "{{a.result}}"})),
            step("c", json!({"x": "{{b.result}}"})),
            step("d", json!({"x": "{{nowhere.result}}"})),
            step("d", json!({})),
            step("e", json!({"x": "{{e.result.y}}"})),
            step("f", json!({"x": "{{f.nope}}"})),
        ];
        let errors = Graph::of(&steps).unwrap_err();
        assert!(errors.contains(&GraphError::DuplicateId("d".into())));
        assert!(errors.contains(&GraphError::MissingStep {
            step: "d".into(),
            missing: "nowhere".into()
        }));
        assert!(errors.contains(&GraphError::SelfReference("e".into())));
        assert!(errors
            .iter()
            .any(|e| matches!(e, GraphError::BadReference { step, .. } if step == "f")));
        assert!(errors.contains(&GraphError::Cycle(vec!["a".into(), "b".into(), "c".into()])));
    }
}
