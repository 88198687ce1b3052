"""Tours, presets, polls and the lecture hall.

- `tours`: guided tours: ordered steps, each a page state, a narrative and maybe a prediction question.
- `tour_panel`: the story panel above the views: a tour's step, or the story of the preset shown.
- `tour_layout`: what the story panel is made of (its frame, the tour links, a question and its answers' bars).
- `tour_story`: which story the panel tells for a page state (pure functions of the validated state).
- `tour_text`: a tour's text as the panel shows it, with links to the explanations and the way out.
- `tour_markup`: a tour's references to a view's explanation: links in the panel, words in an exported file.
- `presets`: named scenarios that each tell one story (plain query strings).
- `poll_links`: where a class poll is answered: the link (and its QR code) students open on their phones.
- `vote_page`: the page students open on their phones to answer a class poll (plain HTML, no script).
"""
