// Marks the page as scripted before it is drawn, so CSS can hide what only forms without
// JavaScript need (a file of its own: the Content-Security-Policy allows no inline script).
document.documentElement.classList.add("js");
