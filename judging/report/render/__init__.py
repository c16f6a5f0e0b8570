"""Report renderers: Markdown, HTML, JSON and CSV from one report model."""
