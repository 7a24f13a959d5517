// Reads a chosen CSV or text file into the textarea that the file input's data-into names, so
// that staff can pick a file while the form still posts URL-encoded (the admin never parses a
// multipart body). The file input has no name: the file itself is never sent.
document.addEventListener("change", function (ev) {
  var input = ev.target;
  if (!input.matches || !input.matches("input[type=file][data-into]")) {
    return;
  }
  var file = input.files && input.files[0];
  if (!file) {
    return;
  }
  file.text().then(function (text) {
    document.getElementById(input.dataset.into).value = text;
  });
});
