// Site-wide behaviour that needs no inline script (the CSP forbids it).
document.addEventListener("DOMContentLoaded", () => {
  document.documentElement.classList.add("js");
});
