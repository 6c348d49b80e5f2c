"""The authoring UI: drafts of admission policies, their forms, preview and export."""
