"""Pictures (referee/pictures/): SVG positions and `referee show`."""
