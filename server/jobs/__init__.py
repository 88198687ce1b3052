"""Jobs: identity (`ids`), the view the API answers (`models`), and the two runners behind one protocol."""
