//! `text_enum!`: a typed state kept as text. Each variant's word is written once and serves
//! serde (the API's JSON), `as_str`/`Display` (pages and logs) and, on the server, sea-orm's
//! column type (`DeriveActiveEnum`), so a status column reads and writes the enum itself.

/// Declares `enum Name { Variant = "word", … }` with `as_str`, `from_text`, `ALL` and
/// `Display`; the derives are Clone, Copy, Debug, PartialEq, Eq, Hash and serde's, and on the
/// server sea-orm's `EnumIter` and `DeriveActiveEnum` (a `Text` column). More derives (such as
/// `Default`) and methods go beside it as usual.
#[macro_export]
macro_rules! text_enum {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $( $(#[$vmeta:meta])* $variant:ident = $text:literal ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
        #[cfg_attr(
            feature = "server",
            derive(sea_orm::EnumIter, sea_orm::DeriveActiveEnum),
            sea_orm(rs_type = "String", db_type = "Text")
        )]
        $vis enum $name {
            $(
                $(#[$vmeta])*
                #[serde(rename = $text)]
                #[cfg_attr(feature = "server", sea_orm(string_value = $text))]
                $variant,
            )+
        }

        impl $name {
            /// Every value, in the order declared.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The word the column, the API and the pages use.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text,)+
                }
            }

            /// The value whose word is `text`.
            pub fn from_text(text: &str) -> Option<Self> {
                Self::ALL.iter().copied().find(|v| v.as_str() == text)
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

#[cfg(test)]
mod tests {
    crate::text_enum! {
        /// A test state.
        pub enum Light {
            /// Go.
            Green = "green",
            AmberFlashing = "amber_flashing",
            Red = "red",
        }
    }

    #[test]
    fn each_word_is_the_enum_in_json_text_and_lookup() {
        assert_eq!(Light::AmberFlashing.as_str(), "amber_flashing");
        assert_eq!(Light::Red.to_string(), "red");
        assert_eq!(Light::from_text("green"), Some(Light::Green));
        assert_eq!(Light::from_text("blue"), None);
        assert_eq!(Light::ALL.len(), 3);
        let json = serde_json::to_string(&Light::AmberFlashing).unwrap();
        assert_eq!(json, "\"amber_flashing\"");
        assert_eq!(
            serde_json::from_str::<Light>("\"red\"").unwrap(),
            Light::Red
        );
    }
}
