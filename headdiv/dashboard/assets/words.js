// The words the page's scripts show, in the page's language (headdiv/dashboard/page/script_words.py writes
// them into the page once per language): `window.headdivWords.say(key, {field: value})`.
(function () {
  var found = document.getElementById("headdiv-words"), words = {};
  try { words = found ? JSON.parse(found.textContent) : {}; } catch (e) { words = {}; }
  window.headdivWords = {
    say: function (key, fields) {
      var text = Object.prototype.hasOwnProperty.call(words, key) ? words[key] : key;
      fields = fields || {};
      return text.replace(/\{([a-z_]+)\}/g, function (all, name) {
        return Object.prototype.hasOwnProperty.call(fields, name) ? String(fields[name]) : all;
      });
    },
  };
})();
