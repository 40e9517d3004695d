//! The import's column mapping: each column of the file, an example from its first row, and the
//! field it fills (a standard field, one of the organisation's custom fields, or a new field with
//! a name and a type).
use crate::contacts::import_map::{field_name, FieldKind, ImportField, ImportPreview};
use dioxus::prelude::*;

/// The select's value for a field: its tag, `field:<name>` for a known custom field, `new` else.
fn key(f: &ImportField, known: &[(String, FieldKind)]) -> String {
    match f {
        ImportField::Custom { name, .. } if known.iter().any(|(n, _)| n == name) => {
            format!("field:{name}")
        }
        ImportField::Custom { .. } => "new".into(),
        other => serde_json::to_value(other)
            .ok()
            .and_then(|v| v["to"].as_str().map(str::to_owned))
            .unwrap_or_default(),
    }
}

/// The field a select's value stands for; a new field starts named after its header, as text.
fn from_key(value: &str, header: &str, known: &[(String, FieldKind)]) -> ImportField {
    if let Some(name) = value.strip_prefix("field:") {
        let kind = known
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, k)| *k)
            .unwrap_or_default();
        return ImportField::Custom {
            name: name.into(),
            kind,
        };
    }
    if value == "new" {
        return ImportField::Custom {
            name: field_name(header),
            kind: FieldKind::Text,
        };
    }
    ImportField::STANDARD
        .iter()
        .find(|f| key(f, known) == value)
        .cloned()
        .unwrap_or_default()
}

#[component]
pub fn MappingTable(
    preview: ImportPreview,
    mapping: Signal<Vec<ImportField>>,
    on_change: EventHandler<()>,
) -> Element {
    let known = preview.known_fields.clone();
    let mut set = move |i: usize, f: ImportField| {
        if let Some(slot) = mapping.write().get_mut(i) {
            *slot = f;
        }
        on_change.call(());
    };
    rsx! {
        div { class: "table-scroll", tabindex: "0", "aria-label": "Columns and the fields they fill",
            table { class: "import-mapping", id: "import-mapping",
                thead { tr { th { "Column" } th { "First row" } th { "Fills" } } }
                tbody {
                    for (i, header) in preview.headers.iter().cloned().enumerate() {
                        {
                            let current = mapping.read().get(i).cloned().unwrap_or_default();
                            let example = preview.examples.get(i).cloned().unwrap_or_default();
                            let selected = key(&current, &known);
                            let known_for_select = known.clone();
                            let header_for_select = header.clone();
                            rsx! {
                                tr { key: "{i}",
                                    th { scope: "row", "{header}" }
                                    td { class: "muted", "{example}" }
                                    td {
                                        select { class: "import-field", "data-column": "{header}", "aria-label": "Field for the column {header}",
                                            onchange: move |e| set(i, from_key(&e.value(), &header_for_select, &known_for_select)),
                                            for f in ImportField::STANDARD.iter() {
                                                option { value: key(f, &[]), selected: selected == key(f, &[]), {f.label()} }
                                            }
                                            for (name, kind) in known.iter() {
                                                option { value: "field:{name}", selected: selected == format!("field:{name}"), "Field \"{name}\" ({kind.label()})" }
                                            }
                                            option { value: "new", selected: selected == "new", "New field…" }
                                        }
                                        if let ImportField::Custom { name, kind } = current.clone() {
                                            if selected == "new" {
                                                NewField { header: header.clone(), name, kind, on_set: move |f| set(i, f) }
                                            }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// A new custom field's name and type.
#[component]
fn NewField(
    header: String,
    name: String,
    kind: FieldKind,
    on_set: EventHandler<ImportField>,
) -> Element {
    let kind_name = name.clone();
    rsx! {
        span { class: "new-field",
            input { class: "import-field-name", value: "{name}", "aria-label": "New field's name for the column {header}",
                oninput: move |e| on_set.call(ImportField::Custom { name: e.value(), kind }) }
            select { class: "import-field-kind", "aria-label": "New field's type for the column {header}",
                onchange: move |e| on_set.call(ImportField::Custom {
                    name: kind_name.clone(),
                    kind: FieldKind::parse(&e.value()).unwrap_or_default(),
                }),
                for k in FieldKind::ALL {
                    option { value: k.as_str(), selected: k == kind, {k.label()} }
                }
            }
        }
    }
}
