//! An agent loop's side of AGENT-HOOKS-0.1 for Rust hosts: the SDK's own emitter and context
//! builder (composition, identities, records and the approval seam are the SDK's), one call
//! per interception point, each returning what the guarded action must consume.

use std::future::Future;
use std::sync::Arc;

use agent_hooks_runtime::Engine;
use agent_hooks_sdk::{
    AgentContext, AgentContextBuilder, EnforcementMode, InterceptionBlocked, InterceptionEmitter,
    InterceptionRecord,
};
use serde_json::Value;

use crate::interceptor::EngineInterceptor;

/// What a tool gave [`StandardsHost::call_tool`]: its value, and whether it is an error the
/// model should see.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolResult {
    /// The result.
    pub value: Value,
    /// An error result (the tool ran and failed).
    pub is_error: bool,
}

/// One agent session emitting the standard's eight points. A verdict that stops an action
/// is the `Err(InterceptionBlocked)` of its call, carrying the record.
pub struct StandardsHost {
    emitter: InterceptionEmitter,
    builder: AgentContextBuilder,
}

impl std::fmt::Debug for StandardsHost {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StandardsHost")
            .field("emitter", &self.emitter)
            .finish_non_exhaustive()
    }
}

impl StandardsHost {
    /// A session on `emitter` (built in code, or from a host declaration).
    pub fn new(
        emitter: InterceptionEmitter,
        agent_id: &str,
        framework: &str,
        session_id: &str,
    ) -> StandardsHost {
        StandardsHost {
            emitter,
            builder: AgentContextBuilder::new(agent_id, framework, session_id),
        }
    }

    /// A session whose emitter, in `mode`, runs `engine`'s hooks as its interceptor.
    pub fn with_hooks(engine: Arc<Engine>, mode: EnforcementMode, session_id: &str) -> Self {
        let mut emitter = InterceptionEmitter::new(mode, None);
        emitter.register(Box::new(EngineInterceptor::new(engine)));
        StandardsHost::new(emitter, "agent", "agent-hooks-runtime", session_id)
    }

    /// The emitter, to register more interceptors or read its configuration.
    pub fn emitter_mut(&mut self) -> &mut InterceptionEmitter {
        &mut self.emitter
    }

    /// One payload-free record per emission, in order.
    pub fn records(&self) -> &[InterceptionRecord] {
        self.emitter.records()
    }

    async fn emit(&mut self, mut ctx: AgentContext) -> Result<AgentContext, InterceptionBlocked> {
        self.emitter.emit(&mut ctx).await?;
        Ok(ctx)
    }

    /// `agent_startup`, with the tools the agent has.
    pub async fn startup(&mut self, mut tools: Vec<String>) -> Result<(), InterceptionBlocked> {
        tools.sort();
        let ctx = self.builder.agent_startup(tools);
        self.emit(ctx).await.map(drop)
    }

    /// `input`: the content after any transform.
    pub async fn input(
        &mut self,
        content: Value,
        role: &str,
    ) -> Result<Value, InterceptionBlocked> {
        let ctx = self.builder.input(content, role);
        let ctx = self.emit(ctx).await?;
        Ok(ctx["input"]["content"].clone())
    }

    /// `pre_model_call`: the messages to send.
    pub async fn pre_model_call(
        &mut self,
        model_id: &str,
        messages: Vec<Value>,
    ) -> Result<Vec<Value>, InterceptionBlocked> {
        let ctx = self.builder.pre_model_call(model_id, messages.clone());
        let ctx = self.emit(ctx).await?;
        Ok(ctx["messages"].as_array().cloned().unwrap_or(messages))
    }

    /// `post_model_call`: the response as the loop may use it.
    pub async fn post_model_call(
        &mut self,
        model_id: &str,
        content: Value,
        tool_calls: Vec<Value>,
        finish_reason: &str,
    ) -> Result<Value, InterceptionBlocked> {
        let ctx = self
            .builder
            .post_model_call(model_id, content, tool_calls, finish_reason);
        let ctx = self.emit(ctx).await?;
        Ok(ctx["response"].clone())
    }

    /// `pre_tool_call`, `run` on the arguments as they stand after it, `post_tool_call`: the
    /// result to incorporate (a deny at `post_tool_call` withholds it).
    pub async fn call_tool<F, Fut>(
        &mut self,
        call_id: &str,
        name: &str,
        args: Value,
        run: F,
    ) -> Result<Value, InterceptionBlocked>
    where
        F: FnOnce(Value) -> Fut,
        Fut: Future<Output = ToolResult>,
    {
        let ctx = self.builder.pre_tool_call(call_id, name, args);
        let ctx = self.emit(ctx).await?;
        let args = ctx["tool_call"]["args"].clone();
        let result = run(args.clone()).await;
        let after = self
            .builder
            .post_tool_call(call_id, name, args, result.value, result.is_error);
        let after = self.emit(after).await?;
        Ok(after["tool_result"]["value"].clone())
    }

    /// `output`: the content to release, only once its verdict allows it.
    pub async fn output(&mut self, content: Value) -> Result<Value, InterceptionBlocked> {
        let ctx = self.builder.output(content);
        let ctx = self.emit(ctx).await?;
        Ok(ctx["output"]["content"].clone())
    }

    /// `agent_shutdown`: recorded, never an error (the session ends either way).
    pub async fn shutdown(&mut self, reason: &str) -> InterceptionRecord {
        let mut ctx = self.builder.agent_shutdown(reason);
        self.emitter.emit_unchecked(&mut ctx).await
    }
}
