/* consentforms web form script: solves the form's spam challenge (ALTCHA format: find n with
   SHA-256(salt + n) = challenge) and sends the form. On the hosted page the form then posts as
   it would without script; in a tenant's page (data-cf-key) it posts JSON to the API with the
   publishable key and shows the answer. No cookies, nothing from any other origin. */
(function () {
  "use strict";
  var enc = new TextEncoder();

  function bytes(hex) {
    var out = new Uint8Array(hex.length / 2);
    for (var i = 0; i < out.length; i++) out[i] = parseInt(hex.substr(i * 2, 2), 16);
    return out;
  }

  function same(buf, want) {
    var a = new Uint8Array(buf);
    for (var i = 0; i < want.length; i++) if (a[i] !== want[i]) return false;
    return true;
  }

  // solve tries the numbers in batches, so that the digests run side by side.
  async function solve(c) {
    var want = bytes(c.challenge), step = 1000;
    for (var n = 0; n <= c.maxnumber; n += step) {
      var batch = [];
      for (var i = n; i < Math.min(n + step, c.maxnumber + 1); i++) batch.push(crypto.subtle.digest("SHA-256", enc.encode(c.salt + i)));
      var sums = await Promise.all(batch);
      for (var j = 0; j < sums.length; j++) if (same(sums[j], want)) return n + j;
    }
    return -1;
  }

  async function solution(url, headers, form) {
    var r = await fetch(url, { headers: headers, credentials: "omit", cache: "no-store" });
    if (!r.ok) throw new Error("challenge " + r.status);
    var c = await r.json(), t0 = performance.now();
    var n = await solve(c);
    form.setAttribute("data-solve-ms", String(Math.round(performance.now() - t0)));
    if (n < 0) throw new Error("unsolved");
    return btoa(JSON.stringify({ algorithm: c.algorithm, challenge: c.challenge, number: n, salt: c.salt, signature: c.signature }));
  }

  function progress(form, on) {
    var p = form.querySelector("[data-cf-progress], #cf-progress");
    if (p) p.textContent = on ? (p.getAttribute("data-checking") || "…") : "";
    var b = form.querySelector("button[type=submit]");
    if (b) b.disabled = on;
  }

  // The hosted page: fill the hidden altcha field, then post the form as is. Should the
  // challenge fail to load, the form posts without it: the server refuses it, unless the form
  // allows its limited no-script fallback.
  function hosted(form) {
    form.addEventListener("submit", function (ev) {
      var field = form.querySelector("input[name=altcha]");
      if (!field || field.value) return;
      ev.preventDefault();
      progress(form, true);
      solution(form.getAttribute("data-cf-challenge"), {}, form)
        .then(function (v) { field.value = v; })
        .catch(function () {})
        .then(function () { progress(form, false); HTMLFormElement.prototype.submit.call(form); });
    });
  }

  // codeField names the input a validation code is about.
  function codeField(code) {
    if (code.indexOf("consent_to_general_contact_email_") === 0) return "email";
    if (code.indexOf("consent_to_general_contact_phone_") === 0) return "phone_number";
    if (code.indexOf("consent_to_primary_purpose") === 0) return "consent_to_primary_purpose";
    return code.replace(/_(invalid|missing|declined|unknown)$/, "");
  }

  function showErrors(form, codes) {
    form.querySelectorAll(".cf-error").forEach(function (e) { e.remove(); });
    form.querySelectorAll("[aria-invalid]").forEach(function (e) { e.removeAttribute("aria-invalid"); });
    var status = form.querySelector("[data-cf-status]"), unplaced = [];
    codes.forEach(function (code) {
      var input = form.elements[codeField(code)];
      if (!input || !input.id) { unplaced.push(code); return; }
      var p = document.createElement("p");
      p.className = "cf-error error";
      p.id = input.id + "-error";
      p.textContent = code;
      input.setAttribute("aria-invalid", "true");
      input.setAttribute("aria-describedby", p.id);
      input.parentNode.appendChild(p);
    });
    if (status) status.textContent = (form.getAttribute("data-cf-error") || "Please correct the marked fields.") + (unplaced.length ? " " + unplaced.join(", ") : "");
  }

  // A tenant's own page: JSON to accept-submission with the publishable key.
  function embedded(form) {
    var api = form.getAttribute("data-cf-api"), key = form.getAttribute("data-cf-key"), id = form.getAttribute("data-cf-form");
    var auth = { Authorization: "Bearer " + key };
    form.addEventListener("submit", async function (ev) {
      ev.preventDefault();
      progress(form, true);
      var body = { form_id: id, submission_id: "web-" + crypto.getRandomValues(new Uint32Array(4)).join("-") };
      new FormData(form).forEach(function (v, k) { body[k] = v; });
      form.querySelectorAll("input[type=checkbox]").forEach(function (c) { if (!c.name) return; if (c.checked) body[c.name] = true; else delete body[c.name]; });
      // The words beside the checkboxes are those of this version: the record names it. The
      // consents last as long as the form says (the server sets it).
      if (form.getAttribute("data-cf-text-version")) body.consent_text_version = form.getAttribute("data-cf-text-version");
      try {
        body.altcha = await solution(api + "/api/v1/challenges/" + encodeURIComponent(id), auth, form);
        var r = await fetch(api + "/api/v1/forms/accept-submission", { method: "POST", credentials: "omit",
          headers: { Authorization: auth.Authorization, "Content-Type": "application/json" }, body: JSON.stringify(body) });
        if (r.ok) {
          var done = document.createElement("p");
          done.setAttribute("role", "status");
          done.setAttribute("data-cf-done", "");
          // A ticked consent that waits for its confirmation: say to check the inbox.
          var pending = (form.getAttribute("data-cf-confirm") || "").split(",").some(function (n) { return n && body[n] === true; });
          done.textContent = (pending && form.getAttribute("data-cf-thanks-pending")) || form.getAttribute("data-cf-thanks") || "Thank you.";
          form.replaceWith(done);
          return;
        }
        var answer = await r.json().catch(function () { return {}; });
        showErrors(form, answer.errors || [answer.message || String(r.status)]);
      } catch (e) {
        showErrors(form, [String(e.message || e)]);
      }
      progress(form, false);
    });
  }

  // The solver, for the browser test that times it.
  window.cfSolve = solve;
  document.querySelectorAll("form[data-cf-challenge]").forEach(hosted);
  document.querySelectorAll("form[data-cf-key]").forEach(embedded);
})();
