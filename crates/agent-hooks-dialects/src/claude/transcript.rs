//! `transcript_path` for hooks that read it: Claude Code hooks expect a JSONL file of Claude
//! Code's transcript entries (`{"type": "assistant", "message": {"role": "assistant",
//! "content": [{"type": "text", "text": …}]}}` a line). When the host gives no transcript of
//! its own, one is written from `logs/chat-history.jsonl`; without a chat history the field is
//! left out rather than pointing at a file in another format.

use std::io::{BufRead, BufReader};

use serde_json::{Map, Value, json};

use agent_hooks_core::workspace::Workspace;

/// Writes `claude-transcripts/<session>.jsonl` of the runtime's own directory for the workspace
/// (derived from the host's files, not one of them) from the chat history and returns its
/// path; `None` when there is no chat history or the file cannot be written.
///
/// Each chat-history line of `type` `"message"` becomes one entry: its `role` (`assistant`,
/// `agent` or `bot` are the assistant; anything else, or none, the user) and its text
/// (`text`, else a string `content`; a `content` list is kept as it is). Other lines are
/// skipped, as the skill dialect skips them.
pub(crate) fn build(ws: &Workspace, session: &str) -> Option<String> {
    let file = std::fs::File::open(ws.chat_history()).ok()?;
    let mut out = String::new();
    for line in BufReader::new(file).lines() {
        let Ok(line) = line else { continue };
        let Ok(Value::Object(message)) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        if message.get("type").and_then(Value::as_str) != Some("message") {
            continue;
        }
        if let Some(entry) = entry(&message, session) {
            out.push_str(&entry.to_string());
            out.push('\n');
        }
    }
    let path = ws.runtime_dir().join("claude-transcripts").join(format!(
        "{}.jsonl",
        agent_hooks_core::store::filesystem_safe(session)
    ));
    ws.create_runtime_dir().ok()?;
    std::fs::create_dir_all(path.parent()?).ok()?;
    agent_hooks_core::store::write_atomic(&path, out.as_bytes()).ok()?;
    Some(path.to_string_lossy().into_owned())
}

fn entry(message: &Map<String, Value>, session: &str) -> Option<Value> {
    let role = match message.get("role").and_then(Value::as_str) {
        Some("assistant" | "agent" | "bot") => "assistant",
        _ => "user",
    };
    let content = match (message.get("text"), message.get("content")) {
        (Some(Value::String(text)), _) | (None, Some(Value::String(text))) => {
            json!([{"type": "text", "text": text}])
        }
        (_, Some(list @ Value::Array(_))) => list.clone(),
        _ => return None,
    };
    let mut entry = json!({
        "type": role,
        "message": {"role": role, "content": content},
        "sessionId": session,
    });
    if let (Some(ts), Value::Object(map)) = (
        message.get("timestamp").or_else(|| message.get("ts")),
        &mut entry,
    ) {
        map.insert("timestamp".into(), ts.clone());
    }
    Some(entry)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_chat_history_becomes_claude_code_transcript_lines() {
        let dir = tempfile::tempdir().expect("temp dir");
        let ws = Workspace::new(dir.path());
        assert_eq!(build(&ws, "s1"), None, "no chat history, no transcript");
        std::fs::create_dir_all(dir.path().join("logs")).expect("logs dir");
        std::fs::write(
            ws.chat_history(),
            "{\"type\":\"message\",\"role\":\"user\",\"text\":\"fix it\"}\nnot json\n\
             {\"type\":\"tool\"}\n{\"type\":\"message\",\"role\":\"assistant\",\"text\":\"<promise>DONE</promise>\"}\n",
        )
        .expect("write history");
        let path = build(&ws, "s1").expect("a transcript");
        let text = std::fs::read_to_string(&path).expect("read transcript");
        let lines: Vec<Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).expect("JSON line"))
            .collect();
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[1]["type"], "assistant");
        assert_eq!(
            lines[1]["message"]["content"][0]["text"],
            "<promise>DONE</promise>"
        );
        // What a Ralph-style stop hook greps for.
        assert!(text.contains("\"role\":\"assistant\""));
    }
}
