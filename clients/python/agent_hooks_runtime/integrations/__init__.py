"""Ready-made adapters that put an existing agent's own hook system on the sidecar."""
