//! AGENT-HOOKS-0.1's conformance kit against the Rust host, `StandardsHost`, with the SDK's
//! own Rust runner: every vector the SDK's Rust reference harness passes must pass here, and
//! one it skips is skipped here for the same reason.
//!
//! The vectors ship with the pinned PyPI release (`agent-hooks-sdk==0.1.0b3`, MIT) and are read
//! from it at test time, never copied here: `$AGENT_HOOKS_CTK_VECTORS` names their directory,
//! else the interpreter of `$AGENT_HOOKS_STANDARDS_PYTHON` (which `.ci/run` makes) says where
//! its package keeps them. Without either the test says so and checks nothing.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use agent_hooks_sdk::ctk::{
    Harness, HostRegistry, HostSurface, IdentityPair, KindResolver, ReferenceHarness, RunRecord,
    ToolSeamPosture, VectorSetup, async_trait, load_vectors, run_vector,
};
use agent_hooks_sdk::{
    AgentContext, DeclarationError, EnforcementMode, IdentityProvider, InterceptionEmitter,
    Interceptor, Transform, apply_transform_to_ctx,
};
use agent_hooks_standards::host::{StandardsHost, ToolResult};
use serde_json::{Map, Value, json};

/// Where the pinned release keeps its vectors, if this machine has it.
fn vectors_dir() -> Result<PathBuf, String> {
    let set = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    if let Some(dir) = set("AGENT_HOOKS_CTK_VECTORS") {
        return Ok(PathBuf::from(dir));
    }
    let python = set("AGENT_HOOKS_STANDARDS_PYTHON")
        .ok_or("neither AGENT_HOOKS_CTK_VECTORS nor AGENT_HOOKS_STANDARDS_PYTHON is set")?;
    let out = std::process::Command::new(python)
        .args([
            "-c",
            "import pathlib, agent_hooks.ctk as k; print(pathlib.Path(k.__file__).parent / 'vectors')",
        ])
        .output()
        .map_err(|e| format!("cannot run $AGENT_HOOKS_STANDARDS_PYTHON: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "$AGENT_HOOKS_STANDARDS_PYTHON has no agent-hooks-sdk: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()))
}

/// The kit's redaction seam, as the SDK's reference harness does it: each path's value
/// replaced by `"[redacted]"`, a path that does not resolve left alone.
fn redact(ctx: &AgentContext, paths: &[String]) -> AgentContext {
    let mut out = ctx.clone();
    for path in paths {
        let transform = Transform {
            path: path.clone(),
            value: json!("[redacted]"),
        };
        let mut attempt = out.clone();
        if apply_transform_to_ctx(&mut attempt, &transform).is_ok() {
            out = attempt;
        }
    }
    out
}

/// The kit's harness seam over `StandardsHost`.
#[derive(Default)]
struct RuntimeHarness {
    scenario: Value,
    host: Option<StandardsHost>,
    tools: Arc<Mutex<Vec<Value>>>,
    sessions: u64,
}

type Slots = Arc<Mutex<Vec<Option<Box<dyn Interceptor>>>>>;

impl RuntimeHarness {
    fn document(&self) -> Value {
        json!({
            "declaration": "agent-hooks-declaration/1.0",
            "spec": "agent-hooks/0.1",
            "id": "agent-hooks-runtime",
            "host": {"name": "agent-hooks-runtime", "version": "0.1.0"},
            "configuration": {
                "mode": "enforce",
                "composition": {"profile": "sequential/first_deny", "on_approval": "stop"},
                "identity_provider": "jcs-sha256",
                "approval": {"resolver": null, "redactor": null},
                "posture": {"tool_seam_host_error": "continue"},
                "timeouts": {"interceptor_ms": 5000, "approval_resolver_ms": 5000},
                "records": {"max_buffered": null},
            },
            "surface": {
                "interception_points": [
                    "agent_startup", "input", "pre_model_call", "post_model_call",
                    "pre_tool_call", "post_tool_call", "output", "agent_shutdown",
                ],
                "capabilities": self.capabilities(),
                "profiles": {
                    "sequential/first_deny": {"on_approval": ["resume", "stop"]},
                    "sequential/run_all": {},
                    "parallel/strictest": {"on_transform_conflict": ["approval", "deny"]},
                    "parallel/unanimous": {"on_disagreement": ["approval", "deny"]},
                },
                "buffered_output": true,
                "declaration_versions": ["agent-hooks-declaration/1.0"],
            },
            "bindings": [],
            "extensions": {},
        })
    }

    fn start(&mut self, scenario: Value, emitter: InterceptionEmitter) {
        self.sessions += 1;
        self.scenario = scenario;
        self.tools = Arc::default();
        let session = format!("sess-{}", self.sessions);
        self.host = Some(StandardsHost::new(
            emitter,
            "ctk-agent",
            "agent-hooks-runtime",
            &session,
        ));
    }

    fn tool(&self, name: &str) -> impl FnOnce(Value) -> std::future::Ready<ToolResult> + use<> {
        let spec = self.scenario["tools"]
            .as_array()
            .and_then(|tools| tools.iter().find(|t| t["name"] == name))
            .cloned()
            .unwrap_or(Value::Null);
        let log = self.tools.clone();
        let name = name.to_owned();
        move |args: Value| {
            let behavior = spec["behavior"]
                .as_array()
                .and_then(|b| {
                    b.iter()
                        .find(|b| b.get("when_args").is_none_or(|w| *w == args))
                })
                .cloned()
                .unwrap_or_else(|| panic!("tool {name} invoked with {args}: no matching behavior"));
            log.lock()
                .expect("the log")
                .push(json!({"name": name, "args": args}));
            std::future::ready(ToolResult {
                value: behavior["return"].clone(),
                is_error: behavior["is_error"].as_bool().unwrap_or(false),
            })
        }
    }

    async fn session(&mut self) -> Result<Value, agent_hooks_sdk::InterceptionBlocked> {
        let s = self.scenario.clone();
        let mut tools: Vec<String> = s["tools"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|t| t["name"].as_str().map(str::to_owned))
            .collect();
        tools.sort();
        let role = s["input"]["role"].as_str().unwrap_or("user").to_owned();
        let content = s["input"]["content"].clone();
        let host = self.host.as_mut().expect("set up");
        host.startup(tools).await?;
        host.input(content.clone(), &role).await?;
        let mut messages = vec![json!({"role": role, "content": content})];
        let mut final_output = Value::Null;
        for step in s["model_script"].as_array().into_iter().flatten() {
            let reply = &step["respond"];
            let host = self.host.as_mut().expect("set up");
            messages = host.pre_model_call("mock", messages).await?;
            let calls = reply["tool_calls"].as_array().cloned().unwrap_or_default();
            let finish = reply["finish_reason"].as_str().unwrap_or("");
            host.post_model_call("mock", reply["content"].clone(), calls.clone(), finish)
                .await?;
            if calls.is_empty() {
                final_output = reply["content"].clone();
                break;
            }
            for call in &calls {
                let name = call["name"].as_str().unwrap_or("");
                let run = self.tool(name);
                let id = call["id"].as_str().unwrap_or("");
                let host = self.host.as_mut().expect("set up");
                let message = match host.call_tool(id, name, call["args"].clone(), run).await {
                    Ok(value) => json!({"role": "tool", "content": value}),
                    Err(blocked) => json!({"role": "tool", "content": format!(
                        "blocked: {}",
                        blocked.record.verdict.reason.as_deref().unwrap_or("")
                    )}),
                };
                messages.push(message);
            }
            let said = if reply["content"].is_null() {
                json!("")
            } else {
                reply["content"].clone()
            };
            messages.push(json!({"role": "assistant", "content": said}));
        }
        if !final_output.is_null() {
            let host = self.host.as_mut().expect("set up");
            final_output = host.output(final_output).await?;
        }
        Ok(final_output)
    }
}

#[async_trait]
impl Harness for RuntimeHarness {
    fn name(&self) -> &str {
        "agent-hooks-runtime"
    }

    fn capabilities(&self) -> Vec<String> {
        // As the Rust reference: serde_json cannot hold a literal past u64, so no bigint_json.
        [
            "host_declaration",
            "int64_json",
            "model_calls",
            "tool_calls",
        ]
        .map(str::to_owned)
        .to_vec()
    }

    fn host_surface(&self) -> HostSurface {
        HostSurface::from_capabilities(self.capabilities(), ToolSeamPosture::Continue)
    }

    fn declaration(&self) -> Option<Value> {
        Some(self.document())
    }

    fn setup(&mut self, setup: VectorSetup) {
        let mut doc = self.document();
        let mut registry = HostRegistry::for_conformance(self.host_surface());
        let mut cfg = Map::new();
        cfg.insert(
            "mode".into(),
            json!(match setup.mode {
                EnforcementMode::Enforce => "enforce",
                EnforcementMode::EvaluateOnly => "evaluate_only",
            }),
        );
        cfg.insert("composition".into(), json!(setup.composition));
        let provider = match setup.identity_provider {
            IdentityProvider::JcsSha256 => json!("jcs-sha256"),
            IdentityProvider::Null => Value::Null,
            IdentityProvider::Custom { name, f } => {
                registry = registry
                    .identity_provider(&name, f)
                    .expect("a valid provider name");
                json!(name)
            }
        };
        cfg.insert("identity_provider".into(), provider);
        let resolver = match setup.resolver {
            Some(r) => {
                registry = registry
                    .approval_resolver("ctk-scripted", r)
                    .expect("a valid name");
                json!("ctk-scripted")
            }
            None => Value::Null,
        };
        let redactor = if setup.redact_for_approval.is_empty() {
            Value::Null
        } else {
            let paths = setup.redact_for_approval;
            registry = registry
                .approval_redactor("ctk-redact", move |ctx| redact(ctx, &paths))
                .expect("a valid name");
            json!("ctk-redact")
        };
        cfg.insert(
            "approval".into(),
            json!({"resolver": resolver, "redactor": redactor}),
        );
        for (key, value) in cfg {
            doc["configuration"][key] = value;
        }
        let slots: Slots = Arc::new(Mutex::new(
            setup.interceptors.into_iter().map(Some).collect(),
        ));
        let n = slots.lock().expect("slots").len();
        let instance: KindResolver = Box::new(move |config, ctx| {
            let i = config
                .get("index")
                .and_then(Value::as_u64)
                .ok_or_else(|| "config.index must be an unsigned integer".to_owned())?;
            slots
                .lock()
                .expect("slots")
                .get_mut(i as usize)
                .and_then(Option::take)
                .ok_or_else(|| format!("no interceptor instance {i} for binding {}", ctx.id))
        });
        registry = registry
            .kind("ctk.instance", instance)
            .expect("a valid kind");
        doc["bindings"] = (0..n)
            .map(|i| json!({"id": format!("interceptor-{i}"), "kind": "ctk.instance", "config": {"index": i}}))
            .collect();
        let emitter = InterceptionEmitter::from_declaration_value(doc, &registry)
            .unwrap_or_else(|e| panic!("this host's declaration was refused: {e}"));
        self.start(setup.scenario, emitter);
    }

    fn setup_declared(
        &mut self,
        setup: VectorSetup,
        document: Value,
        registry: HostRegistry,
    ) -> Result<(), DeclarationError> {
        let emitter = InterceptionEmitter::from_declaration_value(document, &registry)?;
        self.start(setup.scenario, emitter);
        Ok(())
    }

    async fn run(&mut self) -> RunRecord {
        let (outcome, final_output) = match self.session().await {
            Ok(out) => ("completed", out),
            Err(_) => ("blocked", Value::Null),
        };
        let host = self.host.as_mut().expect("set up");
        host.shutdown(if outcome == "completed" {
            "completed"
        } else {
            "error"
        })
        .await;
        let records = host.records();
        RunRecord {
            outcome: outcome.to_owned(),
            final_output,
            tool_invocations: self.tools.lock().expect("the log").clone(),
            identities: records
                .iter()
                .map(|r| IdentityPair {
                    input_identity: r.input_identity.clone(),
                    enforced_identity: r.enforced_identity.clone(),
                })
                .collect(),
            records: records
                .iter()
                .map(|r| serde_json::to_value(r).expect("a record serializes"))
                .collect(),
            ..RunRecord::default()
        }
    }

    fn teardown(&mut self) {
        self.host = None;
    }
}

#[tokio::test]
async fn the_rust_host_passes_every_vector_the_rust_reference_passes() {
    let dir = match vectors_dir() {
        Ok(dir) => dir,
        Err(why) => {
            eprintln!("skipped: the conformance vectors are not on this machine ({why})");
            return;
        }
    };
    let vectors = load_vectors(&dir).expect("read the vectors");
    assert_eq!(vectors.len(), 75, "the pinned release ships 75 vectors");
    let (mut passed, mut skipped, mut failed) = (0, 0, Vec::new());
    for vector in &vectors {
        let reference = run_vector(&mut ReferenceHarness::new(), vector).await;
        let ours = run_vector(&mut RuntimeHarness::default(), vector).await;
        match (reference.status, ours.status) {
            (_, "pass") => passed += 1,
            ("skip", "skip") if reference.detail == ours.detail => skipped += 1,
            ("fail", _) => {}
            _ => failed.push(format!(
                "{} ({}): {:?} {}",
                ours.id, ours.status, ours.failures, ours.detail
            )),
        }
    }
    eprintln!(
        "{passed} passed, {} failed, {skipped} skipped",
        failed.len()
    );
    assert!(failed.is_empty(), "{failed:#?}");
    // The one more skip than the Python host's is AH-CTK-091: serde_json cannot hold an
    // integer past u64, so neither Rust harness claims bigint_json.
    assert_eq!((passed, skipped), (70, 5));
}
