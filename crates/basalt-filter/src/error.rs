//! Why a filter spec cannot be built into an evaluator.

/// A spec that is well-formed data but not a valid filter (HBase's constructor checks).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FilterError {
    #[error("invalid regular expression {pattern:?}: {reason}")]
    InvalidRegex { pattern: String, reason: String },
    #[error("{filter}: {reason}")]
    InvalidArgument {
        filter: &'static str,
        reason: String,
    },
    #[error("filters nested deeper than {depth_max}")]
    TooDeep { depth_max: usize },
}

impl FilterError {
    pub(crate) fn invalid(filter: &'static str, reason: impl Into<String>) -> Self {
        Self::InvalidArgument {
            filter,
            reason: reason.into(),
        }
    }
}
