// SPDX-License-Identifier: GPL-2.0
/*
 * Wren interrupts and event queues: MSI-X vector 0 serves the admin
 * completion queue and the async event queue; every other vector has an
 * event queue of its own, on which the device announces completions.
 * The driver of the RDMA auxiliary device hears of them through the
 * callbacks it set with wren_set_event_ops().
 */
#include <linux/dma-mapping.h>
#include <linux/interrupt.h>

#include "wren_dev.h"

/**
 * wren_set_event_ops() - start delivering the device's object events
 * @wdev: the device
 * @ops: the callbacks, both set; they must stay valid until
 *	wren_clear_event_ops() returns
 * @priv: their first argument
 *
 * For the driver bound to the RDMA auxiliary device, from its probe: one
 * listener at a time.  The callbacks run in atomic context under
 * rcu_read_lock(), see &struct wren_event_ops.
 */
void wren_set_event_ops(struct wren_dev *wdev, const struct wren_event_ops *ops,
			void *priv)
{
	if (WARN_ON_ONCE(rcu_access_pointer(wdev->events)))
		return;
	wdev->sink.ops = ops;
	wdev->sink.priv = priv;
	rcu_assign_pointer(wdev->events, &wdev->sink);
}
EXPORT_SYMBOL_NS_GPL(wren_set_event_ops, WREN);

/**
 * wren_clear_event_ops() - stop delivering the device's object events
 * @wdev: the device
 *
 * Sleeps until every call of the callbacks that had started has
 * returned: none runs once this returns.
 */
void wren_clear_event_ops(struct wren_dev *wdev)
{
	RCU_INIT_POINTER(wdev->events, NULL);
	synchronize_rcu();
	wdev->sink.ops = NULL;
	wdev->sink.priv = NULL;
}
EXPORT_SYMBOL_NS_GPL(wren_clear_event_ops, WREN);

static irqreturn_t wren_mgmt_irq(int irq, void *data)
{
	struct wren_dev *wdev = data;

	wren_admin_process(wdev);
	wren_aeq_process(wdev);
	return IRQ_HANDLED;
}

/**
 * wren_irqs_init() - allocate MSI-X vectors and the management interrupt
 * @wdev: the device
 *
 * Without MSI-X the admin queue is polled and there are no event queues.
 *
 * Return: 0 or a negative errno.
 */
int wren_irqs_init(struct wren_dev *wdev)
{
	struct pci_dev *pdev = wdev->pdev;
	int nvec, err;

	nvec = pci_msix_vec_count(pdev);
	if (nvec > 0)
		nvec = min_t(int, nvec, num_online_cpus() + 1);
	if (nvec > 0)
		nvec = pci_alloc_irq_vectors(pdev, 1, nvec, PCI_IRQ_MSIX);
	if (nvec <= 0) {
		dev_warn(&pdev->dev, "no MSI-X (%d), polling the admin queue\n",
			 nvec);
		wdev->admin.poll = true;
		wdev->num_vectors = 0;
		return 0;
	}
	wdev->num_vectors = nvec;
	if (wdev->admin.poll)
		return 0;
	err = request_irq(pci_irq_vector(pdev, 0), wren_mgmt_irq, 0,
			  "wren-mgmt", wdev);
	if (err) {
		pci_free_irq_vectors(pdev);
		wdev->num_vectors = 0;
	}
	return err;
}

/**
 * wren_irqs_destroy() - free the management interrupt and the vectors
 * @wdev: the device
 */
void wren_irqs_destroy(struct wren_dev *wdev)
{
	if (!wdev->num_vectors)
		return;
	if (!wdev->admin.poll)
		free_irq(pci_irq_vector(wdev->pdev, 0), wdev);
	pci_free_irq_vectors(wdev->pdev);
	wdev->num_vectors = 0;
}

static u32 wren_eq_depth(void)
{
	return 1U << WREN_EQ_LOG_DEPTH;
}

static void wren_eq_arm(struct wren_eq *eq)
{
	wren_wr(eq->wdev, WREN_REG_EQ_DB(eq->id),
		FIELD_PREP(WREN_EQ_DB_HEAD, eq->head) | WREN_EQ_DB_ARM);
}

static void wren_eq_dispatch(struct wren_eq *eq, const struct wren_eqe *eqe,
			     const struct wren_event_sink *sink)
{
	struct wren_dev *wdev = eq->wdev;

	switch (eqe->type) {
	case WREN_EQE_COMPLETION:
		if (wren_eth_cq_event(wdev, le32_to_cpu(eqe->handle)))
			break;
		if (sink)
			sink->ops->cq_comp(sink->priv, le32_to_cpu(eqe->handle));
		break;
	default:
		atomic64_inc(&wdev->stats.eqe_unknown);
		dev_warn_ratelimited(&wdev->pdev->dev,
				     "EQ %u: unknown event type %u (handle %u)\n",
				     eq->id, eqe->type, le32_to_cpu(eqe->handle));
		break;
	}
}

/*
 * Consume the event queue and re-arm it.  The head is free running modulo
 * 2^24, a multiple of twice the depth, so it keeps its phase as it wraps.
 */
VISIBLE_IF_KUNIT void wren_eq_process(struct wren_eq *eq)
{
	u32 mask = wren_eq_depth() - 1;
	struct wren_event_sink *sink;
	struct wren_eqe *eqe;

	rcu_read_lock();
	sink = rcu_dereference(eq->wdev->events);
	for (;;) {
		eqe = &eq->ring[eq->head & mask];
		if (!wren_ring_ready(READ_ONCE(eqe->flags), WREN_EQE_FLAG_PHASE,
				     eq->head, WREN_EQ_LOG_DEPTH))
			break;
		dma_rmb();
		wren_eq_dispatch(eq, eqe, sink);
		eq->events++;
		eq->head = (eq->head + 1) & WREN_EQ_DB_HEAD;
	}
	rcu_read_unlock();
	wren_eq_arm(eq);
}
EXPORT_SYMBOL_IF_KUNIT(wren_eq_process);

static irqreturn_t wren_eq_irq(int irq, void *data)
{
	wren_eq_process(data);
	return IRQ_HANDLED;
}

static void wren_eq_free(struct wren_dev *wdev, struct wren_eq *eq)
{
	dma_free_coherent(&wdev->pdev->dev, wren_eq_depth() * sizeof(*eq->ring),
			  eq->ring, eq->dma);
}

static int wren_eq_create(struct wren_dev *wdev, struct wren_eq *eq, u16 vector)
{
	struct pci_dev *pdev = wdev->pdev;
	int err;

	eq->wdev = wdev;
	eq->vector = vector;
	eq->ring = dma_alloc_coherent(&pdev->dev,
				      wren_eq_depth() * sizeof(*eq->ring),
				      &eq->dma, GFP_KERNEL);
	if (!eq->ring)
		return -ENOMEM;
	err = wren_cmd_create_eq(wdev, eq->dma, WREN_EQ_LOG_DEPTH, vector,
				 &eq->id);
	if (err)
		goto err_free_ring;
	if (eq->id >= WREN_REG_EQ_DB_MAX) {
		dev_err(&pdev->dev, "device gave EQ id %u, out of range\n",
			eq->id);
		err = -EPROTO;
		goto err_destroy_eq;
	}
	snprintf(eq->name, sizeof(eq->name), "wren-eq%u@%s", eq->id,
		 pci_name(pdev));
	err = request_irq(pci_irq_vector(pdev, vector), wren_eq_irq, 0,
			  eq->name, eq);
	if (err)
		goto err_destroy_eq;
	wren_eq_arm(eq);
	return 0;

err_destroy_eq:
	wren_cmd_destroy_eq(wdev, eq->id);
err_free_ring:
	wren_eq_free(wdev, eq);
	return err;
}

static void wren_eq_destroy(struct wren_dev *wdev, struct wren_eq *eq)
{
	int err;

	free_irq(pci_irq_vector(wdev->pdev, eq->vector), eq);
	err = wren_cmd_destroy_eq(wdev, eq->id);
	/* The device may still write the ring: leak it rather than free it. */
	if (err)
		dev_err(&wdev->pdev->dev, "destroy EQ %u failed: %d\n",
			eq->id, err);
	else
		wren_eq_free(wdev, eq);
}

/**
 * wren_eqs_create() - one event queue per completion vector
 * @wdev: the device, enabled, attributes known
 *
 * Return: 0 or a negative errno.
 */
int wren_eqs_create(struct wren_dev *wdev)
{
	unsigned int n = 0, want;
	int err;

	if (wdev->num_vectors < 2)
		return 0;
	want = min(wdev->num_vectors - 1, wdev->caps.max_eq);
	wdev->eqs = kcalloc(want, sizeof(*wdev->eqs), GFP_KERNEL);
	if (!wdev->eqs)
		return -ENOMEM;
	for (n = 0; n < want; n++) {
		err = wren_eq_create(wdev, &wdev->eqs[n], n + 1);
		if (err)
			goto err_destroy_eqs;
	}
	wdev->num_eqs = n;
	wdev->caps.num_comp_vectors = n;
	return 0;

err_destroy_eqs:
	while (n--)
		wren_eq_destroy(wdev, &wdev->eqs[n]);
	kfree(wdev->eqs);
	wdev->eqs = NULL;
	return err;
}

/**
 * wren_eqs_destroy() - destroy the event queues
 * @wdev: the device
 */
void wren_eqs_destroy(struct wren_dev *wdev)
{
	while (wdev->num_eqs)
		wren_eq_destroy(wdev, &wdev->eqs[--wdev->num_eqs]);
	kfree(wdev->eqs);
	wdev->eqs = NULL;
}
