"""Pages (referee/pages/): the site, its incremental build, the picture cache, in a real browser
too."""
