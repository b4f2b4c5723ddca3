//! Conditional mutations and HBase's compare operators (reference §1.6).

use super::{Mutation, RowMutations};
use crate::{FilterSpec, TimeRange};
use bytes::Bytes;
use std::cmp::Ordering;

/// HBase's `CompareOperator`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CompareOp {
    Less,
    LessOrEqual,
    Equal,
    NotEqual,
    GreaterOrEqual,
    Greater,
    /// Never matches.
    NoOp,
}

impl CompareOp {
    /// Whether `ordering` (of `left` against `right`) satisfies `left OP right`.
    pub fn holds(self, ordering: Ordering) -> bool {
        match self {
            Self::Less => ordering.is_lt(),
            Self::LessOrEqual => ordering.is_le(),
            Self::Equal => ordering.is_eq(),
            Self::NotEqual => ordering.is_ne(),
            Self::GreaterOrEqual => ordering.is_ge(),
            Self::Greater => ordering.is_gt(),
            Self::NoOp => false,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::Less => "LESS",
            Self::LessOrEqual => "LESS_OR_EQUAL",
            Self::Equal => "EQUAL",
            Self::NotEqual => "NOT_EQUAL",
            Self::GreaterOrEqual => "GREATER_OR_EQUAL",
            Self::Greater => "GREATER",
            Self::NoOp => "NO_OP",
        }
    }

    pub fn parse(text: &str) -> crate::Result<Self> {
        [
            Self::Less,
            Self::LessOrEqual,
            Self::Equal,
            Self::NotEqual,
            Self::GreaterOrEqual,
            Self::Greater,
            Self::NoOp,
        ]
        .into_iter()
        .find(|op| op.name().eq_ignore_ascii_case(text))
        .ok_or_else(|| crate::error::invalid(format!("unknown compare operator '{text}'")))
    }
}

/// What must hold for a check-and-mutate to apply.
#[derive(Debug, Clone, PartialEq)]
pub enum Condition {
    /// `expected OP current` on the newest version of `family:qualifier` (note the operand
    /// order: the expected value is on the left, the opposite of filters). `None` or an
    /// empty expected value means "the cell does not exist (or is empty)".
    Column {
        family: Bytes,
        qualifier: Bytes,
        op: CompareOp,
        expected: Option<Bytes>,
    },
    /// The row passes the filter.
    Filter(FilterSpec),
}

/// Apply `mutations` to `row` atomically if `condition` holds.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckAndMutate {
    pub row: Bytes,
    pub condition: Condition,
    /// Which versions the condition looks at.
    pub time_range: TimeRange,
    pub mutations: RowMutations,
}

impl CheckAndMutate {
    /// `checkAndPut`/`checkAndDelete` shape: one mutation under one column condition.
    pub fn column(
        row: impl Into<Bytes>,
        family: impl Into<Bytes>,
        qualifier: impl Into<Bytes>,
        op: CompareOp,
        expected: Option<Bytes>,
        mutation: Mutation,
    ) -> crate::Result<Self> {
        let row = row.into();
        let mutations = RowMutations::new(row.clone(), vec![mutation])?;
        Ok(Self {
            row,
            condition: Condition::Column {
                family: family.into(),
                qualifier: qualifier.into(),
                op,
                expected,
            },
            time_range: TimeRange::ALL,
            mutations,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ops_follow_left_op_right() {
        let lt = 1.cmp(&2);
        assert!(CompareOp::Less.holds(lt));
        assert!(CompareOp::LessOrEqual.holds(lt));
        assert!(CompareOp::NotEqual.holds(lt));
        assert!(!CompareOp::Greater.holds(lt));
        assert!(!CompareOp::NoOp.holds(Ordering::Equal));
        assert_eq!(
            CompareOp::parse("greater_or_equal").expect("known"),
            CompareOp::GreaterOrEqual
        );
    }
}
