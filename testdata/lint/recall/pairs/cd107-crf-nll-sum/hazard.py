def train_tagger(model, data, optimizer, epochs):
    for epoch in range(epochs):
        sum_log_likelihood = 0.0
        for sentence, tags in data:
            model.zero_grad()
            neg_log_likelihood = model.neg_log_likelihood(sentence, tags)
            neg_log_likelihood.backward()
            optimizer.step()
            sum_log_likelihood += neg_log_likelihood  # want CD107
        print(epoch, sum_log_likelihood)
