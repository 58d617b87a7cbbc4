// The hello-world edge function of bench/functions.sh: served by plinth's
// function host at /functions/v1/hello, and by a bare `deno run` of this
// same file as the baseline.
Deno.serve(() => new Response('hello'))
