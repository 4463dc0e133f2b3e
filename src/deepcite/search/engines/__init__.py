"""Built-in search engines; each is loaded lazily through deepcite.search.registry."""
