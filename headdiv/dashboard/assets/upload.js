// The Real models view's upload: the chosen (or dropped) .safetensors file, or a model folder's files (its
// config.json, shards and model.safetensors.index.json; a folder's other files are not sent), go straight
// to the API as multipart (`POST api/v1/models/hdi`, one `file` part each, relayed by the dashboard's own
// server when it runs apart from the API), with a progress bar and a cancel button; never base64 through a
// Dash callback. The answer, or why there is none, goes to the store `mdl-upload-result`, which the view's
// callback draws. The address and the server's size limit come from the page's <meta name="headdiv-upload">.
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

  // the files of one model: .safetensors weights, config.json, model.safetensors.index.json
  function isModelFile(name) {
    return /\.safetensors$/.test(name) || name === "config.json" || name === "model.safetensors.index.json";
  }
  // {files, name} of what was chosen or dropped; `folder` names a chosen folder
  function model(all, folder) {
    var files = Array.prototype.filter.call(all, function (f) { return isModelFile(f.name); });
    var first = all[0] && all[0].webkitRelativePath ? all[0].webkitRelativePath.split("/")[0] : "";
    var name = folder || first || (files.length === 1 ? files[0].name : files.length + " files");
    return { files: files, name: name, skipped: all.length - files.length };
  }

  function send(chosenModel) {
    var cfg = config(), files = chosenModel.files, name = chosenModel.name;
    var size = files.reduce(function (n, f) { return n + f.size; }, 0);
    if (!files.some(function (f) { return /\.safetensors$/.test(f.name); })) {
      answer({ name: name, error: "no .safetensors file among what was chosen" +
        (chosenModel.skipped ? " (" + chosenModel.skipped + " other files are not a model's weights)" : "") });
      return;
    }
    if (cfg.limit && size > cfg.limit) {
      answer({ name: name, error: (files.length > 1 ? "its files are " : "it is ") + mb(size) + ", more than the " +
        mb(cfg.limit) + " this server takes (HEADDIV_MAX_UPLOAD_BYTES); measure it with `headdiv heads` on your machine" });
      return;
    }
    stop();
    var form = new FormData();
    files.forEach(function (f) { form.append("file", f, f.name); });
    if (files.length > 1) form.append("model", name.slice(0, 200));
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
      bar(true, e.total ? e.loaded / e.total : 0, "sending " + name + ": " + mb(e.loaded) + " of " + mb(e.total));
    };
    req.upload.onload = function () { bar(true, 1, "measuring " + name + "…"); };
    req.onload = function () {
      xhr = null;
      bar(false);
      var body = null;
      try { body = JSON.parse(req.responseText); } catch (e) { /* refused below */ }
      if (req.status === 200 && body) answer({ name: name, result: body });
      else answer({ name: name, error: reason(req.status, req.responseText) });
    };
    req.onerror = function () {
      xhr = null;
      bar(false);
      answer({ name: name, error: "the upload failed: the server could not be reached" });
    };
    req.onabort = function () { xhr = null; bar(false); answer({ name: name, error: "upload canceled" }); };
    bar(true, 0, "sending " + name + "…");
    req.send(form);
  }

  function choose(folder) {
    var input = document.createElement("input");
    input.type = "file";
    if (folder) input.webkitdirectory = true;
    else { input.multiple = true; input.accept = ".safetensors,.json"; }
    input.onchange = function () { if (input.files.length) { chosen = model(input.files); send(chosen); } };
    input.click();
  }
  // a dropped folder's files (one level: a model folder holds its files directly), else the dropped files
  function dropped(transfer, done) {
    var items = transfer.items ? Array.prototype.slice.call(transfer.items) : [];
    var entry = items.length === 1 && items[0].webkitGetAsEntry ? items[0].webkitGetAsEntry() : null;
    if (!entry || !entry.isDirectory) { done(model(transfer.files)); return; }
    var reader = entry.createReader(), entries = [];
    (function more() {
      reader.readEntries(function (batch) {
        if (batch.length) { entries = entries.concat(batch); more(); return; }
        var files = entries.filter(function (e) { return e.isFile; }), out = [], left = files.length;
        function one() { left -= 1; if (left === 0) done(model(out, entry.name)); }
        if (!left) { done(model([], entry.name)); return; }
        files.forEach(function (e) { e.file(function (f) { out.push(f); one(); }, one); });
      }, function () { done(model([], entry.name)); });
    })();
  }
  function within(e, selector) { return e.target && e.target.closest ? e.target.closest(selector) : null; }

  document.addEventListener("click", function (e) {
    if (within(e, "#mdl-choose")) choose(false);
    else if (within(e, "#mdl-choose-folder")) choose(true);
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
    if (e.dataTransfer) dropped(e.dataTransfer, function (m) { chosen = m; send(m); });
  });
})();
