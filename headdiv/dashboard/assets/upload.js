// The Real models view's upload: the chosen (or dropped) .safetensors file goes straight to the API as
// multipart (`POST api/v1/models/hdi`, relayed by the dashboard's own server when it runs apart from the
// API), with a progress bar and a cancel button; never base64 through a Dash callback. The answer, or why
// there is none, goes to the store `mdl-upload-result`, which the view's callback draws. The address and
// the server's size limit come from the page's <meta name="headdiv-upload">.
(function () {
  var xhr = null, chosen = null;

  function config() {
    var tag = document.querySelector('meta[name="headdiv-upload"]');
    try { return JSON.parse(tag.content); } catch (e) { return { url: "api/v1/models/hdi", limit: 0 }; }
  }
  // through Dash, so its renderer knows (a dcc.Store has no element in the page to look for)
  function props(id, values) { if (window.dash_clientside) window.dash_clientside.set_props(id, values); }
  function answer(a) { a.at = Date.now(); props("mdl-upload-result", { data: a }); }
  function bar(shown, value, note) {
    props("mdl-upload-bar", { style: shown ? {} : { display: "none" } });
    if (value !== undefined) props("mdl-upload-progress", { value: String(value) });
    if (note !== undefined) props("mdl-upload-note", { children: note });
  }
  function mb(n) { return (n / 1048576).toFixed(n < 10 * 1048576 ? 1 : 0) + " MB"; }
  function field(id) { var el = document.getElementById(id); return el && el.value ? String(el.value) : ""; }
  function reason(status, text) {
    var body = null;
    try { body = JSON.parse(text); } catch (e) { /* not JSON: said by status below */ }
    var said = body && (body.message || (typeof body.detail === "string" ? body.detail : null));
    if (status === 413) return "the file is larger than this server takes" + (said ? " (" + said + ")" : "");
    if (status === 429) return "the server is busy measuring other uploads; try again in a moment";
    return said || "the server answered " + status;
  }
  function stop() {
    if (!xhr) return;
    var old = xhr;
    xhr = null;
    old.onabort = old.onload = old.onerror = null;
    old.abort();
  }

  function send(file) {
    var cfg = config();
    if (cfg.limit && file.size > cfg.limit) {
      answer({ name: file.name, error: "it is " + mb(file.size) + ", more than the " + mb(cfg.limit) +
        " this server takes (HEADDIV_MAX_UPLOAD_BYTES)" });
      return;
    }
    stop();
    var form = new FormData();
    form.append("file", file, file.name);
    var heads = field("mdl-num-heads"), kv = field("mdl-num-kv");
    if (heads) form.append("num_heads", heads);
    if (kv) form.append("num_kv_heads", kv);
    form.append("seed", field("mdl-seed") || "0");
    var req = xhr = new XMLHttpRequest(), last = 0;
    req.open("POST", cfg.url);
    req.upload.onprogress = function (e) {
      var now = Date.now();
      if (now - last < 100 && e.loaded < e.total) return;  // a few updates a second are enough to watch
      last = now;
      bar(true, e.total ? e.loaded / e.total : 0, "sending " + file.name + ": " + mb(e.loaded) + " of " + mb(e.total));
    };
    req.upload.onload = function () { bar(true, 1, "measuring " + file.name + "…"); };
    req.onload = function () {
      xhr = null;
      bar(false);
      var body = null;
      try { body = JSON.parse(req.responseText); } catch (e) { /* refused below */ }
      if (req.status === 200 && body) answer({ name: file.name, result: body });
      else answer({ name: file.name, error: reason(req.status, req.responseText) });
    };
    req.onerror = function () {
      xhr = null;
      bar(false);
      answer({ name: file.name, error: "the upload failed: the server could not be reached" });
    };
    req.onabort = function () { xhr = null; bar(false); answer({ name: file.name, error: "upload canceled" }); };
    bar(true, 0, "sending " + file.name + "…");
    req.send(form);
  }

  function choose() {
    var input = document.createElement("input");
    input.type = "file";
    input.accept = ".safetensors";
    input.onchange = function () { if (input.files[0]) { chosen = input.files[0]; send(chosen); } };
    input.click();
  }
  function within(e, selector) { return e.target && e.target.closest ? e.target.closest(selector) : null; }

  document.addEventListener("click", function (e) {
    if (within(e, "#mdl-choose")) choose();
    else if (within(e, "#mdl-upload-cancel") && xhr) xhr.abort();
  });
  // new head counts for the file on screen (after the API asked for them): send it again
  document.addEventListener("change", function (e) {
    if (chosen && e.target && (e.target.id === "mdl-num-heads" || e.target.id === "mdl-num-kv")) send(chosen);
  });
  ["dragenter", "dragover"].forEach(function (type) {
    document.addEventListener(type, function (e) { if (within(e, "#mdl-upload")) e.preventDefault(); });
  });
  document.addEventListener("drop", function (e) {
    if (!within(e, "#mdl-upload")) return;
    e.preventDefault();
    var file = e.dataTransfer && e.dataTransfer.files[0];
    if (file) { chosen = file; send(file); }
  });
})();
