//! What both standards do with the engine: one dispatch, settled by the lapse rule (the lapses
//! gathered, never turned into a deny here: each standard says itself what a lapse comes to),
//! and the context's ids read the same way.

use agent_hooks_core::event::Event;
use agent_hooks_core::outcome::Outcome;
use agent_hooks_runtime::decisions::Surface;
use agent_hooks_runtime::{DispatchOptions, Engine, OnFailure};
use serde_json::{Map, Value};

/// Dispatches `event` with `payload` on `engine`, recorded in the decision log as coming
/// through `surface`, with every lapse in [`Outcome::lapses`].
pub(crate) async fn dispatch(
    engine: &Engine,
    surface: Surface,
    event: Event,
    payload: Map<String, Value>,
) -> Outcome {
    engine
        .dispatch_recorded(
            surface,
            None,
            event,
            payload,
            &DispatchOptions::default(),
            |engine, outcome| {
                agent_hooks_runtime::lapse::settle(engine, outcome, OnFailure::Continue, None)
            },
        )
        .await
}

/// `object[key].id` as a string (`session.id`, `agent.id`).
pub(crate) fn id_of<'a>(object: &'a Map<String, Value>, key: &str) -> Option<&'a str> {
    object.get(key)?.get("id")?.as_str()
}
