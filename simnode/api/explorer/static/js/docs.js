// /docs: the Data API and Metrics API documents this node serves (/openapi/*.json, their
// `servers` pointing at this node) in the vendored swagger-ui, "try it out" on.
(function () {
  const apis = ['data-api', 'metrics-api'];
  const asked = new URLSearchParams(location.search).get('api');
  const api = apis.includes(asked) ? asked : apis[0];
  for (const a of document.querySelectorAll('#docs-tabs a')) a.classList.toggle('active', a.dataset.api === api);
  window.ui = SwaggerUIBundle({
    url: `/openapi/${api}.json`,
    dom_id: '#swagger',
    deepLinking: true,
    tryItOutEnabled: true,
    validatorUrl: null, // never ask the internet to validate the document
    docExpansion: 'none',
    defaultModelsExpandDepth: 0,
    onComplete() { document.body.dataset.ready = api; },
  });
}());
