"""Entity graphs: `extract` (the public API) runs extraction, building, resolution and writing over the
records the model gave (`records`)."""
