// The screenshot's check page (tests/html/run.sh embeds the PNG as a data: URI before this
// script): once loaded, the image is drawn on a canvas and <body> gets data-png="WxH N", its
// size and its number of distinct colours, which --dump-dom shows. No pixel-exact comparison:
// fonts differ from machine to machine.
window.addEventListener("load", function () {
    var img = document.getElementById("shot"), c = document.createElement("canvas");
    c.width = img.naturalWidth;
    c.height = img.naturalHeight;
    var g = c.getContext("2d");
    g.drawImage(img, 0, 0);
    var d = g.getImageData(0, 0, c.width, c.height).data, seen = new Set();
    for (var k = 0; k < d.length; k += 4) seen.add((d[k] << 16) | (d[k + 1] << 8) | d[k + 2]);
    document.body.setAttribute("data-png", c.width + "x" + c.height + " " + seen.size);
});
