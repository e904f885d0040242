// The request's header lines for the router's checks of terminated names
// (lib/egress/router_terminate_checks.c, docs/secrets.md): nginx has a
// variable per header name, none with every header, so this hands the maps
// "\n", then "name:value\n" for each line as the client sent it, every
// copy, in order, the name in lower case. nginx has already refused a line
// with a NUL, CR or LF in it, so a line is always one line here.
function lines(r) {
    var out = '\n';
    var headers = r.rawHeadersIn;
    for (var i = 0; i < headers.length; i++)
        out += headers[i][0].toLowerCase() + ':' + headers[i][1] + '\n';
    return out;
}

export default { lines };
