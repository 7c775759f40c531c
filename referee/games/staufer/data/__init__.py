"""The Staufer Dynasty's component data: the data files of each released data version
and the reference notes with their sources (docs/data.md)."""
