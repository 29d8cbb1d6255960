// Any path under /explorer/ that is not a page (the server answered it with a 404 status).

import { html } from '../format.js';

export async function render(ctx) {
  ctx.title('Page not found');
  ctx.set(html`<div class="card notfound"><h1>Page not found</h1>
<p class="muted mono">${ctx.url.pathname}</p>
<p>This explorer has no such page. Search for a transaction, block, address, node, subnet or chain:</p>
<form class="search" action="/explorer/search" method="get" role="search"><input name="q" type="search" aria-label="Search" placeholder="Tx, block, address, node ID, subnet or chain ID"><button type="submit">Search</button></form>
<p><a href="/explorer/">Back to the overview</a></p></div>`);
}
