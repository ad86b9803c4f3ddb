//! The budget of what lopdf keeps across the loads of one check, counted through its object
//! filter.
use super::*;

thread_local! {
    /// Values lopdf may still keep in the current check on this thread; `None` outside one.
    pub(super) static LEFT: Cell<Option<u64>> = const { Cell::new(None) };
    pub(super) static SPENT: Cell<bool> = const { Cell::new(false) };
}

/// The budget of values lopdf may build during the loads of one check on this thread (see
/// the module documentation). Loads made while it lives pass [`LoadBudget::filter`] to
/// lopdf; dropping it ends the check.
pub struct LoadBudget(());

impl LoadBudget {
    pub fn start() -> LoadBudget {
        LEFT.with(|l| l.set(Some(MAX_VALUES)));
        SPENT.with(|s| s.set(false));
        LoadBudget(())
    }

    /// True once lopdf was refused a value: the loaded documents are incomplete.
    pub fn spent(&self) -> bool {
        SPENT.with(Cell::get)
    }

    /// lopdf's object filter: keeps an object while the budget lasts, then drops every
    /// further one (an object stream then is not even inflated).
    pub fn filter(id: ObjectId, object: &mut Object) -> Option<(ObjectId, Object)> {
        let Some(left) = LEFT.with(Cell::get) else {
            // No check under way on this thread: lopdf runs on the caller's thread only, so
            // this is a load outside a check; keep everything.
            return Some((id, kept(object)));
        };
        let cost = count_values(object, 0);
        if SPENT.with(Cell::get) || cost > left {
            SPENT.with(|s| s.set(true));
            LEFT.with(|l| l.set(Some(0)));
            return None;
        }
        LEFT.with(|l| l.set(Some(left - cost)));
        Some((id, kept(object)))
    }
}

impl Drop for LoadBudget {
    fn drop(&mut self) {
        LEFT.with(|l| l.set(None));
        SPENT.with(|s| s.set(false));
    }
}

/// What the filter hands back. lopdf keeps its own `object` for objects read directly from
/// the file and uses the returned one for members of object streams, which are never
/// streams; so a stream needs no copy.
pub(super) fn kept(object: &Object) -> Object {
    match object {
        Object::Stream(_) => Object::Null,
        other => other.clone(),
    }
}

/// Values in `object`, itself included (lopdf nests at most 100 levels).
pub(super) fn count_values(object: &Object, depth: u32) -> u64 {
    if depth > 128 {
        return 1;
    }
    1 + match object {
        Object::Array(items) => items.iter().map(|o| count_values(o, depth + 1)).sum(),
        Object::Dictionary(dict) => dict
            .iter()
            .map(|(_, v)| 1 + count_values(v, depth + 1))
            .sum(),
        Object::Stream(stream) => stream
            .dict
            .iter()
            .map(|(_, v)| 1 + count_values(v, depth + 1))
            .sum(),
        _ => 0,
    }
}
