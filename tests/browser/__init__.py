"""End-to-end tests: every notebook run in a real JupyterLab (and one in Notebook 7) in Chromium."""
