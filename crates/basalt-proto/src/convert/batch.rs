//! Batch actions and their per-action results (an error is a result too).

use super::{required, ConvertError};
use crate::pb;
use crate::status::{decode_error, encode_error};
use basalt_api::{ApiError, Result as ApiResult};
use basalt_types::{Action, ActionResult, Mutation, RowMutations, RowResult};

/// Whether `mutations` hold an increment or append: not idempotent, so sent with a nonce.
pub fn mutations_need_nonce(mutations: &RowMutations) -> bool {
    mutations
        .mutations
        .iter()
        .any(|m| matches!(m, Mutation::Increment(_) | Mutation::Append(_)))
}

/// Whether a retried `action` could apply twice, so it is sent with a nonce.
pub fn action_needs_nonce(action: &Action) -> bool {
    match action {
        Action::Increment(_) | Action::Append(_) => true,
        Action::RowMutations(r) => mutations_need_nonce(r),
        // Even with puts only: applied twice, the second would answer "not applied".
        Action::CheckAndMutate(_) => true,
        Action::Get(_) | Action::Put(_) | Action::Delete(_) => false,
    }
}

/// An action and its nonce (0 for none).
pub fn encode_action(action: &Action, nonce: u64) -> pb::Action {
    use pb::action::Kind;
    let kind = match action {
        Action::Get(a) => Kind::Get(a.into()),
        Action::Put(a) => Kind::Put(a.into()),
        Action::Delete(a) => Kind::Delete(a.into()),
        Action::Increment(a) => Kind::Increment(a.into()),
        Action::Append(a) => Kind::Append(a.into()),
        Action::RowMutations(a) => Kind::RowMutations(a.into()),
        Action::CheckAndMutate(a) => Kind::CheckAndMutate(a.into()),
    };
    pb::Action {
        kind: Some(kind),
        nonce,
    }
}

/// An action and its nonce.
pub fn decode_action(action: pb::Action) -> Result<(Action, u64), ConvertError> {
    use pb::action::Kind;
    let decoded = match required(action.kind, "Action.kind")? {
        Kind::Get(a) => Action::Get(a.try_into()?),
        Kind::Put(a) => Action::Put(a.try_into()?),
        Kind::Delete(a) => Action::Delete(a.try_into()?),
        Kind::Increment(a) => Action::Increment(a.try_into()?),
        Kind::Append(a) => Action::Append(a.try_into()?),
        Kind::RowMutations(a) => Action::RowMutations(a.try_into()?),
        Kind::CheckAndMutate(a) => Action::CheckAndMutate(a.try_into()?),
    };
    Ok((decoded, action.nonce))
}

pub fn encode_action_result(result: &ApiResult<ActionResult>) -> pb::ActionResult {
    use pb::action_result::Kind;
    let kind = match result {
        Ok(ActionResult::Row(row)) => Kind::Row(row.into()),
        Ok(ActionResult::Done) => Kind::Done(pb::Done {}),
        Ok(ActionResult::CheckAndMutate { succeeded, result }) => {
            Kind::CheckAndMutate(pb::CheckAndMutateResult {
                succeeded: *succeeded,
                result: result.as_ref().map(Into::into),
            })
        }
        Err(e) => Kind::Error(encode_error(e)),
    };
    pb::ActionResult { kind: Some(kind) }
}

/// A result as the client sees it; a malformed one is an invalid-response error.
pub fn decode_action_result(result: pb::ActionResult) -> ApiResult<ActionResult> {
    use pb::action_result::Kind;
    let malformed = |e: ConvertError| ApiError::invalid(format!("malformed batch result: {e}"));
    match result.kind {
        None => Err(malformed(ConvertError::Missing("ActionResult.kind"))),
        Some(Kind::Row(row)) => Ok(ActionResult::Row(row.try_into().map_err(malformed)?)),
        Some(Kind::Done(_)) => Ok(ActionResult::Done),
        Some(Kind::CheckAndMutate(c)) => Ok(ActionResult::CheckAndMutate {
            succeeded: c.succeeded,
            result: c
                .result
                .map(RowResult::try_from)
                .transpose()
                .map_err(malformed)?,
        }),
        Some(Kind::Error(e)) => Err(decode_error(e)),
    }
}
