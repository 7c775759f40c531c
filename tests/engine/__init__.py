"""The engine (referee/engine/): the declared API, the game object, text layout, the generator,
plug-in games."""
