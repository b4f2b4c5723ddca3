//! How many cells a request holds, counted against `cells_per_request_max`: put cells,
//! delete specs (a whole-row delete counts one), increment and append columns.

use basalt_types::{Action, Mutation, RowMutations};

pub fn mutation(m: &Mutation) -> usize {
    match m {
        Mutation::Put(p) => p.cells.len(),
        Mutation::Delete(d) => d.specs.len().max(1),
        Mutation::Increment(i) => i.columns.len(),
        Mutation::Append(a) => a.columns.len(),
    }
}

pub fn row_mutations(r: &RowMutations) -> usize {
    r.mutations.iter().map(mutation).sum()
}

pub fn action(a: &Action) -> usize {
    match a {
        Action::Get(_) => 1,
        Action::Put(p) => p.cells.len(),
        Action::Delete(d) => d.specs.len().max(1),
        Action::Increment(i) => i.columns.len(),
        Action::Append(a) => a.columns.len(),
        Action::RowMutations(r) => row_mutations(r),
        Action::CheckAndMutate(c) => row_mutations(&c.mutations),
    }
}
